"""Game cores: the rules of each game, once, as compiled kernels plus a thin Game class."""
