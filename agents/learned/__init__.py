"""Learned policies as agents: policy adapters (any ``fn(observation, mask)``, SB3 models),
search agents as batched opponents of a learner, and a torch network as the PUCT search's
leaf evaluator."""
