Bencoded_streamJP5
5 3
255
¦/AY1J•jлъд§сm