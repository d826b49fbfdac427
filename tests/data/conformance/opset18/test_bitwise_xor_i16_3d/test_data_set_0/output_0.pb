B
bitwisexorJx¼¦ÉôÜã\X`S"™e;®am5ÂëŸ5ð8i›ÏÚ©ÅR]>¨r¢+ŠXã‹dMd¹nRï¢¦a^ÒcJù‡½¶ÉVy Ÿ÷VÅçQn2ß&'SO¢o=ïQ7DÏgÊWÂ †pÎBvMÒñæd]N<