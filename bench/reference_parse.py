"""The reference miner's parse path, measured in the bench's run: Python json + numpy on the same
/generate body (a file written by proof.bench.ts), hidden states to bf16 bits. Prints one JSON line:
CPU and wall seconds, peak RSS (VmHWM: reset at exec, unlike ru_maxrss), row count and checksum."""
import json
import sys
import time


def status(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    try:
        import numpy as np
    except ImportError:
        print(json.dumps({"skipped": "numpy is not installed (Debian: python3-numpy)"}))
        return
    start = status("VmRSS")
    with open(sys.argv[1], "rb") as f:
        data = f.read()
    c0, w0 = time.process_time(), time.perf_counter()
    text = data
    # SSE: the last event carries the hidden states.
    i = data.rfind(b"data: {")
    if i >= 0:
        end = data.find(b"\n\n", i)
        text = data[i + 6 : end if end >= 0 else len(data)]
    obj = json.loads(text)
    rows = []
    for el in obj["meta_info"]["hidden_states"]:
        if el and isinstance(el[0], list):
            rows.extend(el)
        else:
            rows.append(el)
    arr = np.asarray(rows, dtype=np.float32)
    u = arr.view(np.uint32)
    bf = (((u + np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1))) >> np.uint32(16)) & np.uint32(0xFFFF)).astype(np.uint16)
    cpu, wall = time.process_time() - c0, time.perf_counter() - w0
    peak = status("VmHWM")
    flat = bf.ravel().astype(np.uint64)
    weights = (np.arange(flat.size, dtype=np.uint64) % np.uint64(65521)) + np.uint64(1)
    checksum = int((flat * weights).sum() % np.uint64(1 << 32))
    print(json.dumps({"cpu": cpu, "wall": wall, "startRss": start, "peakRss": peak, "rows": int(arr.shape[0]), "checksum": checksum}))


main()
