BinputJd34ï«lÈ]§$
