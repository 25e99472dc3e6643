"""Five Crowns (2-7 players, and the solitaire variant): rules, meld solver, engine, referee."""
