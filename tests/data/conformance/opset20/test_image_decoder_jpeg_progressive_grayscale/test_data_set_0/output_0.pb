	BimageJu	
% $9W64\j=
(8CKgJbLSI,f…Sv<m…†}š;96_vMb‡cd‘vJZ”gRi–ºt—Ù•a„mŠÔm»–žœ¨Œ|’ˆ¤—µ±É¶áÀ¤“šo”²Ð’§Í½Â¨Èœˆ¬¥ ÂÈ¼ÇÀèìØ