
BinputJö½,›9N²zÂQ0w²29»½P?ô®%9