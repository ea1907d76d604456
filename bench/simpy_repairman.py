"""The machine-repairman model M/M/N//U of src/bench/repairman.ts in SimPy, for the side-by-side figure
in docs/contention.md: 5000 users think (exponential, mean 10 ms), then take one of 80 engines for an
exponential service of mean 194 us. Prints JSON: transactions completed in the measured window (after
the warm-up), the simulated seconds of the window and of the warm-up, wall and CPU seconds of the whole run. Run: python3 src/bench/simpy_repairman.py [simulated seconds] (Debian: python3-simpy3).
"""
import json
import random
import sys
import time

import simpy

ENGINES, USERS, THINK, SERVICE = 80, 5000, 10e-3, 194e-6
WARMUP = 0.1
DURATION = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
done = [0]


def user(env, engines, rng):
    yield env.timeout(rng.expovariate(1 / THINK))
    while True:
        with engines.request() as req:
            yield req
            yield env.timeout(rng.expovariate(1 / SERVICE))
        if env.now >= WARMUP:
            done[0] += 1
        yield env.timeout(rng.expovariate(1 / THINK))


def main():
    rng = random.Random(42)
    env = simpy.Environment()
    engines = simpy.Resource(env, capacity=ENGINES)
    for _ in range(USERS):
        env.process(user(env, engines, rng))
    w0, c0 = time.perf_counter(), time.process_time()
    env.run(until=WARMUP + DURATION)
    wall, cpu = time.perf_counter() - w0, time.process_time() - c0
    print(json.dumps({"simpy": simpy.__version__, "transactions": done[0], "simulated_s": DURATION, "warmup_s": WARMUP, "wall_s": wall, "cpu_s": cpu,
                      "throughput_tps": done[0] / DURATION, "transactions_per_wall_s": done[0] / wall}))


main()
