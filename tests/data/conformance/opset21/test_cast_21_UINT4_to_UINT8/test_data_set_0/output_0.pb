BoutputJ	
