ByJ
À¿,NXV_iP