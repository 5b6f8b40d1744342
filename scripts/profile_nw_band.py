"""One nw_band pass under Nsight Compute (run by the device call: `ncu -k regex:nw_band -c 1
python3 scripts/profile_nw_band.py`): the 10^5 1% pair, linear costs, a certified band, score only."""

from splicedalign.workloads.nw.gpu.solver import GpuSolver
from splicedalign.workloads.nw.records import Costs
from splicedalign.workloads.nw.synthetic import divergent_pair

result = GpuSolver(band_min_cells=0).solve(divergent_pair(100_000, 1.0), Costs(), traceback=False)
print(f"score {result.score} algorithm {result.algorithm}")
