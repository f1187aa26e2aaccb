"""How often a 200-example run of configs(matrix.default()) makes every gate active.

Run: python benchmarks/coverage.py (20 runs of 200 examples, random seeds; about 30 s).
"""
import matrix
from matrix.strategies import configs
from hypothesis import given, settings, HealthCheck
from collections import Counter
m = matrix.default()
gates = [f.id for f in m.features_at()]
full = 0
mins = []
lows = []
for run in range(20):
    seen = Counter()
    @settings(max_examples=200, database=None, suppress_health_check=list(HealthCheck))
    @given(configs(m))
    def t(c):
        try: r = m.resolve(c)
        except matrix.ResolutionError as e: r = e.resolution
        for f in r.active: seen[f.id] += 1
    t()
    covered = len([g for g in gates if seen[g]])
    full += covered == len(gates)
    mins.append(min(seen[g] for g in gates)); lows.extend(g for g in gates if seen[g] <= 1)
print(f"{full} of 20 runs covered all {len(gates)} gates; fewest hits of any gate per run: {mins}")
print(Counter(lows))
