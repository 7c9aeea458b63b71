#!/usr/bin/env python3
# usage: tools/Persister/path-cpu.py COMMAND...   e.g.
#   python3 tools/Persister/path-cpu.py dotnet tools/TradeDriver/bin/Release/net10.0/RapidFix.TradeDriver.dll run --rate 10000 --duration 60
# The whole path's CPU budget for a command that starts the processes itself (TradeDriver run, mst): runs the command,
# samples /proc every 0.2 s, and adds up each process's own CPU (utime + stime, the last value seen before it exits:
# up to 0.2 s of a process's end may be missed) by kind: the matching service, the driver (the TradeDriver process and
# any other of its children), the persister, its lag sampler, and the PostgreSQL cluster the command starts (its
# postmaster, found by the port the command prints, and the postmaster's children). Divides by the messages the
# command reports ("processed N messages") and prints the cores 100,000 messages/s would take. docs/persistence.md.
import os, re, subprocess, sys, time

tck = os.sysconf('SC_CLK_TCK')
start = time.time()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
seen = {}        # pid -> (kind, cpu seconds)
ports = set()
messages = None
load = [open('/proc/loadavg').read().split()[0]]

def stat(pid):
    try:
        s = open(f'/proc/{pid}/stat').read()
        f = s[s.rindex(')') + 2:].split()
        return int(f[1]), (int(f[11]) + int(f[12])) / tck
    except (OSError, ValueError, IndexError):
        return None

def cmdline(pid):
    try:
        return open(f'/proc/{pid}/cmdline', 'rb').read().replace(b'\0', b' ').decode(errors='replace')
    except OSError:
        return ''

def postmasters():
    found = set()
    for d in os.listdir('/tmp'):
        if d.startswith('rapidfix-pg-'):
            try:
                lines = open(f'/tmp/{d}/data/postmaster.pid').read().split('\n')
                if lines[3].strip() in ports:
                    found.add(int(lines[0]))
            except (OSError, IndexError, ValueError):
                pass
    return found

def sample():
    parents, cpus = {}, {}
    for d in os.listdir('/proc'):
        if d.isdigit():
            s = stat(int(d))
            if s:
                parents[int(d)], cpus[int(d)] = s
    roots = {proc.pid: 'driver'} | {pm: 'postgresql' for pm in postmasters()}
    for pid in cpus:
        p, chain = pid, []
        while p > 1 and p not in roots and len(chain) < 64:
            chain.append(p)
            p = parents.get(p, 0)
        if p not in roots:
            continue
        kind = roots[p]
        if kind == 'driver':
            c = cmdline(pid)
            kind = ('matching service' if 'RapidFix.MatchingService' in c else
                    'persister lag sampler' if 'persister-lag' in c else
                    'persister' if 'RapidFix.Persister' in c else
                    'postgresql setup (initdb, pg_ctl)' if re.search(r'initdb|pg_ctl|runuser', c) else 'driver')
        if pid in seen and seen[pid][0] != kind and seen[pid][0] != 'driver':
            kind = seen[pid][0]
        seen[pid] = (kind, cpus[pid])

import threading
def read():
    global messages
    for line in proc.stdout:
        sys.stdout.write(line)
        for m in re.finditer(r'127\.0\.0\.1:(\d+)', line):
            ports.add(m.group(1))
        m = re.search(r'processed (\d+) messages', line)
        if m:
            messages = int(m.group(1))
reader = threading.Thread(target=read, daemon=True)
reader.start()
while proc.poll() is None:
    sample()
    time.sleep(0.2)
reader.join()
load.append(open('/proc/loadavg').read().split()[0])
totals = {}
for kind, cpu in seen.values():
    totals[kind] = totals.get(kind, 0.0) + cpu
print(f'CPU budget of `{" ".join(sys.argv[1:])}` ({time.time() - start:.0f} s, load average {load[0]} to {load[1]}, {os.cpu_count()} cores):')
order = ['matching service', 'driver', 'persister', 'persister lag sampler', 'postgresql']
for kind in order + sorted(set(totals) - set(order)):
    s = totals.get(kind, 0.0)
    per = f'{s / messages * 1e6:8.2f} us a message' if messages else ''
    print(f'  {kind:24} {s:8.2f} s  {per}')
if messages:
    db = totals.get('persister', 0) + totals.get('postgresql', 0)
    every = sum(totals.values())
    print(f'  {messages} messages; database side (persister + PostgreSQL) {db / messages * 1e6:.2f} us a message, in all {every / messages * 1e6:.2f} us: '
          f'at 100,000 messages/s the database side needs {db / messages * 1e5:.2f} cores, everything {every / messages * 1e5:.2f}')
sys.exit(proc.returncode)
