"""The attack suite: an obedient model over real loopback HTTP, injections in every vector, effects judged."""
