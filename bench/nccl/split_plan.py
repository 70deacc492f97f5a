"""The corpus split of issue 55, decided before any case was collected or any entry written.

The n-th case collected (its row order in tests/data/nccl-corpus/index.csv) takes the n-th label of
this plan: a seeded shuffle of 50 held-out and 100 train labels, so one third is held out and
nobody chooses which case lands where. Run it to print the plan.
"""
import random

SEED = 55
SLOTS = 150


def plan(slots=SLOTS, seed=SEED):
    labels = ["held-out"] * (slots // 3) + ["train"] * (slots - slots // 3)
    random.Random(seed).shuffle(labels)
    return labels


if __name__ == "__main__":
    for i, label in enumerate(plan(), 1):
        print(i, label)
