"""Move prediction from pattern statistics: the predictor, its ranking weights and the opening book."""
