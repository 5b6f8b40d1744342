"""One nw_wfa launch under Nsight Compute (on the device: `ncu --set full -k regex:nw_wfa -c 1
python3 scripts/profile_nw_wfa.py`): the 10^5 1% pair, linear costs, score only, the wavefront
kernel forced (the question it answers: what a ~1.2 us score step spends its cycles on)."""

from splicedalign.workloads.nw.gpu.wfa import WfaSolver
from splicedalign.workloads.nw.records import Costs
from splicedalign.workloads.nw.synthetic import divergent_pair

solver = WfaSolver()
result = solver.solve(divergent_pair(100_000, 1.0), Costs(), False, "global", budget_ms=1e3)
print(f"score {result.score if result else None} stats {solver.stats}")
