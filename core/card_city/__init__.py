"""Card City (Alban Viard): split-and-choose drafting, zoning laws, district growth."""
