import json, time, sys
import numpy as np
from pathlib import Path
from models.scenario import parse_scenario
from solvers import sweep
ex = Path("resources/examples")
def sweep_time(name, path, values, repeat=3):
    s = parse_scenario((ex/f"{name}.toml").read_text(), "toml")
    data = json.loads(s.model_dump_json()); data["variants"]=[]
    data["sweeps"]=[{"name":"b","mode":"product","axes":[{"path":path,"values":values}]}]
    sc = parse_scenario(json.dumps(data), "json")
    plan = sweep.plan(sc)
    best=1e9
    for _ in range(repeat):
        t=time.perf_counter()
        for _ in sweep.run(sc, plan): pass
        best=min(best,time.perf_counter()-t)
    return best
def lin(a,b,n,kind=float):
    v=np.linspace(a,b,n)
    return [int(x) for x in np.round(v)] if kind is int else v.tolist()
N=int(sys.argv[1]) if len(sys.argv)>1 else 2048
cases = {
 "jumbo_10gbe": [("nics[0].speed_gbps", lin(1,100,N)), ("host.ghz", lin(1.5,4,N)), ("host.cores_per_socket", list(range(1,513))), ("host.sockets", list(range(1,17)))],
 "seed001_live_migration": [("nics[0].speed_gbps", lin(1,100,N)), ("host.ghz", lin(1.5,4,N)),("workloads.migrations[0].memory_gib", lin(4,512,N)), ("workloads.migrations[0].dirty.rate_mib_s", lin(0,4000,N)), ("workloads.migrations[0].downtime_budget_ms", lin(50,1000,N)), ("workloads.migrations[0].concurrency", list(range(1,65))), ("workloads.migrations[0].streams", list(range(1,65))), ("workloads.transfers[0].sessions", list(range(1,1025))[:N]), ("workloads.transfers[0].stream_cap_gbps", lin(0.5,40,N))],
 "seed002_hcibench": [("workloads.storage[0].block_kib", lin(4,1024,N)), ("workloads.storage[0].read_pct", lin(0,100,N)), ("workloads.storage[0].threads_per_disk", list(range(1,N+1))), ("workloads.storage[0].backend.iops_max", lin(1e4,1e6,N))],
}
for name, axes in cases.items():
    n = N
    mtu = sweep_time(name, "network.mtu", lin(1500,9000,n,int))
    print(f"{name}: MTU {n} pts {mtu:.3f}s")
    for path, values in axes:
        t = sweep_time(name, path, values)
        print(f"   {path:45} {len(values):5} pts {t:.3f}s  ratio/pt {t/len(values)/(mtu/n):.2f}")
