BupdatesJ7¬
¿fÁ‘¿ ¡¾aÍŽ>