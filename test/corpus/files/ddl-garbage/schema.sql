this is not SQL at all
