#!/usr/bin/env python3
# usage: tools/stall-recovery.py RATE STEPSECS STALL_AT STALL_SECS OUT [oncpu|offcpu]
# Does the matching service come back after a stall? Runs the driver's `curve` at one rate (the service in its own
# process; build first: dotnet build tools/TradeDriver -c Release -f net10.0), and STALL_AT seconds after matching
# starts stops the whole service process for STALL_SECS (SIGSTOP, then SIGCONT: what a disk or scheduling stall
# does), printing the service's matched and refused inputs and its ring backlog once a second from its stats file.
# A service that recovers drains its backlog and matches RATE again with nothing refused; a metastable one stays
# low while the load lasts. With oncpu/offcpu, if matching is still below half the rate 8 s after the stall, it
# prints the CPU of each thread over 3 s and records a profile of the service for 4 s (perf record, OUT.data).
# STALL_SECS 0: no stall; the first refusals mark a disturbance that happened by itself (the profile is taken 8 s later).
# Example (docs/performance.md, "The collapse reproduced on purpose"): tools/stall-recovery.py 180000 40 12 2 /tmp/stall
import os, sys, time, subprocess, struct, signal
rate, step, stall_at, stall, out = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
mode = sys.argv[6] if len(sys.argv) > 6 else None
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
driver = os.path.join(root, 'tools/TradeDriver/bin/Release/net10.0/RapidFix.TradeDriver.dll')
env = dict(os.environ)
if mode:
    env.update(DOTNET_PerfMapEnabled='1', DOTNET_EnableWriteXorExecute='0')
log = open(out + '.log', 'w')
p = subprocess.Popen(['dotnet', driver, 'curve', '--rates', str(rate), '--step-seconds', str(step), '--warm-up', '2',
                      '--ramp', '1', '--no-trace', '--no-persister', '--send-tick-us', '500', '--out', out],
                     stdout=log, stderr=subprocess.STDOUT, env=env)
svc = None
while svc is None and p.poll() is None:
    time.sleep(0.2)
    for d in os.listdir('/proc'):
        if d.isdigit():
            try:
                if b'RapidFix.MatchingService.dll' in open(f'/proc/{d}/cmdline', 'rb').read():
                    svc = int(d)
            except OSError:
                pass
if svc is None:
    sys.exit('the service did not start; see ' + out + '.log')
time.sleep(1)
stats = [e.split(b'=', 1)[1].decode() for e in open(f'/proc/{svc}/environ', 'rb').read().split(b'\0')
         if e.startswith(b'RAPIDFIX_SERVICE_STATS=')][0]

def read():  # the stats file's slots (ServiceStatsPublisher.Slot): 6 refused, 7 matched, 8 ring backlog bytes,
    # 17 open trades, 18 trades cleared, 19 inputs rejected, 20 table full
    try:
        return struct.unpack('<21q', open(stats, 'rb').read(168))
    except (OSError, struct.error):
        return (0,) * 21

def threads(pid):
    r = {}
    for tid in os.listdir(f'/proc/{pid}/task'):
        try:
            st = open(f'/proc/{pid}/task/{tid}/stat').read()
            f = st[st.rindex(')') + 2:].split()
            r[tid] = (st[st.index('(') + 1:st.rindex(')')], int(f[11]) + int(f[12]))
        except (OSError, ValueError):
            pass
    return r

prev, started, stalled, t, recorded = read(), None, False, 0, False
prev_rejected = prev[19]
while p.poll() is None:
    time.sleep(1)
    s = read()
    t += 1
    matched, refused = s[7] - prev[7], s[6] - prev[6]
    prev = s
    if started is None and matched > 0:
        started = t
    print(f'{time.strftime("%T")} t={t} matched {matched}/s refused {refused}/s backlog {s[8] >> 20} MiB '
          f'open trades {s[17]} rejected {s[19] - prev_rejected}/s table full {s[20]}', flush=True)
    prev_rejected = s[19]
    if started is not None and not stalled and stall == 0 and refused > 0:
        # No stall asked for: watch for one that happens by itself (refusals are its sign) and profile after it.
        stalled, stall_at = True, t - started
        print('refusals began', flush=True)
    elif started is not None and not stalled and stall > 0 and t - started >= stall_at:
        os.kill(svc, signal.SIGSTOP)
        time.sleep(stall)
        os.kill(svc, signal.SIGCONT)
        stalled = True
        print(f'stalled {stall} s', flush=True)
        prev = read()
    if mode and stalled and not recorded and t - started >= stall_at + 8 and 0 < matched < rate / 2:
        a = threads(svc)
        time.sleep(3)
        b = threads(svc)
        use = sorted(((b[k][1] - a[k][1], b[k][0]) for k in b if k in a), reverse=True)[:8]
        print('service CPU % by thread over 3 s:', ', '.join(f'{n} {d / 3:.0f}' for d, n in use), flush=True)
        events = ['-F', '499'] if mode == 'oncpu' else ['-e', 'sched:sched_switch']
        subprocess.run(['perf', 'record', *events, '-g', '-p', str(svc), '-o', out + '.data', '--', 'sleep', '4'],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print('recorded ' + out + '.data (perf report -i ' + out + '.data --no-children --sort sym)', flush=True)
        recorded = True
p.wait()
print('\n'.join(l for l in open(out + '.log').read().split('\n') if l.startswith(('offered', 'note'))))
