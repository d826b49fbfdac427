tBencoded_streamJtP6
7 5
255
└
Е]G┼I-⌠╢Dж°lНg╥@lНaэ8FёФPй⌠≤пD╝л≥▀hС▐нн)&*Нv	 4T⌡	≤°ЪЖ9#оq~ш7Ц\	K▌Щ\Д┴]QЧ╜Н УЁМhN4Qк0╩инЩL╨