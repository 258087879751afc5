#!/usr/bin/env python3
# Samples, beside a soak or bench run (docs/benchmarks.md "Soak"): every second the CPU (% of one
# core) of PostgreSQL, NATS, the service and other node processes, and the service by thread; every
# 5 s the active statements of pg_stat_activity by wait event; every 30 s the busiest tables of
# database SAMPLER_DB (default postgres: set it to the run's database to see its tables); every
# second PostgreSQL's WAL figures of that second (pg_stat_wal: bytes, full-page images, syncs and,
# with track_wal_io_timing on, the milliseconds spent writing and syncing WAL: a disk that
# stalls an fsync shows here as a second of sync time).
# Usage: python3 scripts/soak-sampler.py /tmp/sampler.jsonl  (one JSON line a second; stop it with
# kill). For time per statement, load pg_stat_statements (shared_preload_libraries) and read it.
import os, sys, time, subprocess, collections, json
HZ = os.sysconf('SC_CLK_TCK')
out = open(sys.argv[1], 'w')
def procs():
    res = {}
    for pid in os.listdir('/proc'):
        if not pid.isdigit(): continue
        try:
            cmd = open(f'/proc/{pid}/cmdline','rb').read().replace(b'\0',b' ').decode(errors='replace')
            st = open(f'/proc/{pid}/stat').read().rsplit(')',1)[1].split()
            res[int(pid)] = (cmd, int(st[11])+int(st[12]))
        except Exception: pass
    return res
def group(cmd):
    if 'postgres' in cmd: return 'postgres'
    if 'nats-server' in cmd: return 'nats'
    if 'dist/src/main.js' in cmd or 'dist/src/index.js' in cmd or 'src/main' in cmd: return 'service'
    if 'vitest' in cmd or 'node' in cmd: return 'node-other'
    return 'other'
def threads(pid):
    res = {}
    try:
        for tid in os.listdir(f'/proc/{pid}/task'):
            try:
                comm = open(f'/proc/{pid}/task/{tid}/comm').read().strip()
                st = open(f'/proc/{pid}/task/{tid}/stat').read().rsplit(')',1)[1].split()
                res[tid] = (comm, int(st[11])+int(st[12]))
            except Exception: pass
    except Exception: pass
    return res
def psql(q):
    try:
        return subprocess.run(['psql','-h','127.0.0.1','-U','root','-d',os.environ.get('SAMPLER_DB','postgres'),'-AtF','\t','-c',q],capture_output=True,text=True,timeout=5).stdout
    except Exception as e: return str(e)
WAL_Q = "select wal_bytes, wal_fpi, wal_sync, wal_write_time, wal_sync_time from pg_stat_wal"
def wal():
    try: return [float(x) for x in psql(WAL_Q).strip().split('\t')]
    except Exception: return None
prev = procs(); prevt = {}; t0 = time.time(); n = 0; prevwal = wal()
while True:
    time.sleep(1); n += 1
    cur = procs()
    g = collections.Counter()
    svc = None
    for pid,(cmd,t) in cur.items():
        if pid in prev: g[group(cmd)] += (t - prev[pid][1]) * 100 / HZ
        if group(cmd) == 'service': svc = pid
    rec = {'t': round(time.time()-t0), 'cpu': {k: round(v) for k,v in g.items()}, 'load': open('/proc/loadavg').read().split()[0]}
    if svc:
        th = threads(svc); tc = collections.Counter()
        for tid,(comm,t) in th.items():
            if tid in prevt: tc[comm] += (t - prevt[tid][1]) * 100 / HZ
        prevt = th
        rec['threads'] = {k: round(v) for k,v in tc.most_common(6) if v >= 1}
    w = wal()
    if w and prevwal:
        d = [a - b for a, b in zip(w, prevwal)]
        rec['wal'] = {'kb': round(d[0] / 1024), 'fpi': int(d[1]), 'syncs': int(d[2]), 'write_ms': round(d[3]), 'sync_ms': round(d[4])}
    prevwal = w
    if n % 5 == 0:
        rec['pg'] = psql("select coalesce(wait_event_type,'cpu')||':'||coalesce(wait_event,'-')||' '||left(regexp_replace(query,'\\s+',' ','g'),70), count(*) from pg_stat_activity where state='active' and pid<>pg_backend_pid() group by 1 order by 2 desc limit 8").strip().split('\n')
    if n % 30 == 0:
        rec['tables'] = psql("select relname, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_tup_del, n_dead_tup, n_live_tup, seq_scan, autovacuum_count from pg_stat_user_tables where n_live_tup > 1000 or n_dead_tup > 1000 order by n_dead_tup desc limit 8").strip().split('\n')
        rec['vacuum'] = psql("select relid::regclass, phase from pg_stat_progress_vacuum").strip()
    out.write(json.dumps(rec)+'\n'); out.flush()
    prev = cur
