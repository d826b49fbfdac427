
BinputJ=Àw<I:™=È/@