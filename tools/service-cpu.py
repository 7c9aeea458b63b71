#!/usr/bin/env python3
# usage: tools/service-cpu.py DRIVERDIR RATE STEPSECS LABEL [plain|strace|strace-driver|perf|perf-all] [curve options...]
# (strace: the service's system calls for 5 s, strace-driver: the driver's, perf: a profile of the service for 8 s,
# perf-all: of the whole machine (service, driver, kernel threads) for 8 s; options after the mode go to `curve`)
# Runs the driver's curve at one rate (service in its own process), samples the service's and the driver's CPU per
# thread over the middle of the steady part, and divides by the inputs the matcher completed (stats file).
import os, sys, time, subprocess, struct, collections, re
drv, rate, step, label = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
do_strace = len(sys.argv) > 5 and sys.argv[5] in ('strace', 'strace-driver')
strace_pid_of_driver = len(sys.argv) > 5 and sys.argv[5] == 'strace-driver'
do_perf = len(sys.argv) > 5 and sys.argv[5] in ('perf', 'perf-all')
perf_all = len(sys.argv) > 5 and sys.argv[5] == 'perf-all'
extra = sys.argv[6:]
if do_perf:
    os.environ['DOTNET_PerfMapEnabled']='1'; os.environ['DOTNET_EnableWriteXorExecute']='0'
tck = os.sysconf('SC_CLK_TCK')
out = f'/tmp/rapidfix-service-cpu/{label}'
os.makedirs(out, exist_ok=True)
log = open(f'{out}/driver.log', 'w')
def load(): return open('/proc/loadavg').read().split()[0]
l0 = load()
p = subprocess.Popen(['dotnet', f'{drv}/RapidFix.TradeDriver.dll', 'curve', '--rates', str(rate), '--step-seconds', str(step),
                      '--warm-up', '2', '--ramp', '1', '--no-trace', '--no-persister', '--out', out] + extra, stdout=log, stderr=subprocess.STDOUT)
def find_service():
    for d in os.listdir('/proc'):
        if not d.isdigit(): continue
        try:
            cmd = open(f'/proc/{d}/cmdline', 'rb').read().split(b'\0')
            if any(c.endswith(b'RapidFix.MatchingService.dll') for c in cmd) and int(open(f'/proc/{d}/stat').read().split(') ')[1].split()[1]) == p.pid:
                return int(d)
        except Exception: pass
    return None
svc = None
while svc is None and p.poll() is None:
    time.sleep(0.2); svc = find_service()
env = open(f'/proc/{svc}/environ', 'rb').read().split(b'\0')
stats = [e.split(b'=', 1)[1].decode() for e in env if e.startswith(b'RAPIDFIX_SERVICE_STATS=')][0]
def counters():
    try:
        b = open(stats, 'rb').read(8 * 12)
        v = struct.unpack('<12q', b)
        return {'recv': v[4], 'journalled': v[5], 'refused': v[6], 'matched': v[7]}
    except Exception: return None
# live traffic starts when Received moves; then warm-up 2 s + ramp 1 s; sample the middle of the steady part
while p.poll() is None:
    c = counters()
    if c and c['recv'] > 1000: break
    time.sleep(0.05)
time.sleep(3.0 + 2.0)
window = step - 6
def snap(pid):
    d = {}
    for t in os.listdir(f'/proc/{pid}/task'):
        try:
            s = open(f'/proc/{pid}/task/{t}/stat').read()
            name = s[s.index('(') + 1:s.rindex(')')]
            f = s[s.rindex(')') + 2:].split()
            st = open(f'/proc/{pid}/task/{t}/status').read().split('\n')
            cs = sum(int(l.split()[1]) for l in st if 'ctxt_switches' in l)
            d[t] = (name, (int(f[11]) + int(f[12])) / tck, cs)
        except Exception: pass
    return d
def diff(a, b):
    g = collections.defaultdict(lambda: [0.0, 0])
    for t, (n, c, cs) in b.items():
        c0, cs0 = (a[t][1], a[t][2]) if t in a else (0, 0)
        g[n][0] += c - c0; g[n][1] += cs - cs0
    return g
c0 = counters(); a = snap(svc); da = snap(p.pid); t0 = time.time()
st = None
if do_strace:
    time.sleep(2)
    st = subprocess.Popen(['strace', '-c', '-f', '-p', str(p.pid if strace_pid_of_driver else svc), '-o', f'{out}/strace.txt'], stderr=subprocess.DEVNULL)
    time.sleep(5); st.send_signal(2); st.wait()
    time.sleep(max(0, window - 7))
elif do_perf:
    time.sleep(1)
    st = subprocess.Popen(['perf', 'record', '-F', '999', '-g', '-e', 'cpu-clock'] + (['-a'] if perf_all else ['-p', str(svc)]) + ['-o', f'{out}/perf.data'], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(8); st.send_signal(2); st.wait()
    time.sleep(max(0, window - 9))
else:
    time.sleep(window)
c1 = counters(); b = snap(svc); db = snap(p.pid); dt = time.time() - t0
l1 = load()
p.wait()
matched = c1['matched'] - c0['matched']; recv = c1['recv'] - c0['recv']; refused = c1['refused'] - c0['refused']
g = diff(a, b); gd = diff(da, db)
tot = sum(v[0] for v in g.values()); totd = sum(v[0] for v in gd.values())
verdict = ''
for line in open(f'{out}/driver.log'):
    if line.startswith('offered '): verdict = line.strip()
res = [f'{label}: rate {rate} window {dt:.1f}s load {l0}->{l1}; received {recv/dt:.0f}/s matched {matched/dt:.0f}/s refused {refused/dt:.0f}/s',
       f'  service CPU {tot:.2f}s = {tot/dt*100:.0f}% core, {tot/max(matched,1)*1e6:.2f} us/matched input; driver CPU {totd:.2f}s = {totd/dt*100:.0f}%, {totd/max(recv,1)*1e6:.2f} us/sent msg']
for n, (c, cs) in sorted(g.items(), key=lambda x: -x[1][0]):
    if c > 0.005 or cs > 100: res.append(f'    svc {n:22s} {c/max(matched,1)*1e6:7.2f} us/input  ctxsw/input {cs/max(matched,1):.3f}')
for n, (c, cs) in sorted(gd.items(), key=lambda x: -x[1][0])[:5]:
    res.append(f'    drv {n:22s} {c/max(recv,1)*1e6:7.2f} us/msg  ctxsw/msg {cs/max(recv,1):.3f}')
res.append('  ' + verdict)
print('\n'.join(res))
open(f'{out}/summary.txt', 'w').write('\n'.join(res) + '\n')
