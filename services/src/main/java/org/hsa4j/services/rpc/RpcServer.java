package org.hsa4j.services.rpc;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.agent.Agent;
import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;
import org.hsa4j.memory.MemoryOrder;
import org.hsa4j.memory.MemoryScope;
import org.hsa4j.memory.Svm;
import org.hsa4j.signal.SignalWaiter;
import org.hsa4j.trace.CallTrace;
import org.hsa4j.trace.Tracer;

/**
 * The host side of the RPC ports: server threads that find calls and run their services.
 *
 * <h2>Finding calls</h2>
 * A client that hands the turn to the server sets its port's bit in the pending bitmap. A server
 * thread takes one bit at a time with an atomic AND (so one thread gets each), then claims the
 * port's server side with a compare-and-swap on {@link RpcLayout#SERVER_CLAIM}. A port already
 * claimed (a call in progress, whose thread reads its later packets itself) is left alone. The
 * thread that releases a claim re-checks the flags afterwards and re-marks the port pending if a
 * packet arrived meanwhile, so no packet is left behind between a failed claim and a release.
 *
 * <h2>Running calls</h2>
 * An unknown opcode, a malformed lane mask, an unknown calling agent or a call from an aborted
 * dispatch is answered at once with an error status. A service touches the call's buffers through
 * the calling agent's view of SVM ({@link ServerCall#svm()}), so with that agent's access rights:
 * a GPU caller's plain system memory faults (XNACK off) for the service as it would in the kernel. {@link ServiceMode#INLINE} services run on the server thread;
 * {@link ServiceMode#HANDLER} services go through the {@link HandlerPool} ring, unless the server
 * thread may run one itself (see "Handler calls on the server thread"). Whatever a service
 * throws ends its call with a status; the server thread goes on. A port call is registered in its
 * port's {@link PortSet.ServerSlot} from its OPEN packet to its final packet, so a caller that
 * cancels ends it at once ({@link ServerCall#abandon}), deferred or not, and gets the port back.
 * A deferred reply has a deadline ({@link Config#deferredTimeoutNanos()}): past it, the call ends
 * with TIMEOUT the same way, so a reply that never comes holds its port for a bounded time. A
 * watchdog ends a service that runs past {@link Config#serviceTimeoutNanos()} on a server or
 * handler thread and moves that thread aside (see {@link #watchdog()}), so a stuck service never
 * blocks the others.
 *
 * <h2>Handler calls on the server thread</h2>
 * Handing a call to a handler thread costs a wake-up of a parked thread and a second hop for the
 * reply: tens of microseconds on 2 cores, against a page-cache pread of half a microsecond. So a
 * server thread runs a HANDLER call itself when it is the only one doing so (a token,
 * {@code handlerCallHere}, holding the call's port) and, after it counted itself among the set's
 * sleepers, no other port is pending. While the call runs, a client posting to any other port
 * sees a sleeper and rings the doorbell, and {@link #wakeOne}, finding no sleeping server thread,
 * unparks the <em>substitute</em>: a spare server thread, parked (a second at a time) while no such
 * call runs, that scans as a server thread does (it hands HANDLER calls to the pool and watches no
 * port) until the call ends. So a call that blocks for long (a read on an empty pipe, a slow disk)
 * stalls no other port's call, without a timer per call. A call that finds another port pending
 * goes to the pool as before: under load calls are shared out among handlers as they were.
 *
 * <h2>Sleeping and waking</h2>
 * A server thread with nothing to do spins for a while, then counts itself in the
 * set's {@link RpcLayout#SET_SLEEPERS}, re-checks the bitmap and parks for at most
 * {@code repollNanos}. A client reads the sleeper count after setting its pending bit (both
 * volatile, so one of the two sides sees the other) and rings the doorbell signal when someone
 * sleeps; the doorbell's waiter unparks one sleeping thread. A doorbell that is never rung (a
 * kernel writing the port behind the client API, a lost wake-up) costs at most one re-poll
 * period, never a hang. A server idle for long wakes once per re-poll period and per thread
 * (each wake costs tens of microseconds of CPU on a loaded machine: 50 ms keeps it near 0.1%).
 *
 * <p>The idle spin adapts: it starts at {@code idleSpinNanos}; when a doorbell wakes the thread
 * soon after it fell asleep (a caller was only a little slower than the spin, as happens when the
 * machine is loaded and threads wait for a core), the spin doubles, up to 1 ms; each timed re-poll
 * that finds nothing halves it again. Without that, a caller descheduled a little longer than the
 * spin makes every later call pay a doorbell wake-up, and the two sides stay out of step.
 */
public final class RpcServer implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(RpcServer.class.getName());
    private static final int RUNNING = 0;
    private static final int SLEEPING = 1;
    private static final int WOKEN = 2;
    private static final int ABORTED_DISPATCHES_KEPT = 4096;
    /** Most threads the watchdog keeps moved aside (stuck in a service) at once. */
    static final int MAX_MOVED_ASIDE = 64;
    /** Longs from one server thread's counter to the next: a cache line apart. */
    private static final int COUNTER_STRIDE = 8;
    /** First sleep of a server thread that just went idle; sleeps double up to the re-poll period. */
    static final long MIN_REPOLL_NANOS = 1_000_000;
    /**
     * How long the substitute server thread parks at a time while it has nothing to cover: it is
     * woken by {@link #wakeOne} when needed, so this only bounds the park (one wake-up a second).
     */
    static final long SUBSTITUTE_REST_NANOS = 1_000_000_000;
    /** Longest idle spin the server adapts to when calls keep arriving just after it fell asleep. */
    static final long MAX_ADAPTIVE_SPIN_NANOS = 1_000_000;

    /**
     * How the server runs.
     *
     * @param deferredTimeoutNanos the server-side deadline of a deferred reply (nanosleep, accept, recv):
     *                             past it the call ends with {@link RpcStatus#TIMEOUT} and its port comes back
     * @param serviceTimeoutNanos  how long a service may run on a server or handler thread: past it the
     *                             watchdog ends its call with {@link RpcStatus#TIMEOUT} and moves the
     *                             thread aside (a fresh one takes its place)
     * @param handlerCallsHere     whether a server thread may run a HANDLER call itself (see the class comment)
     */
    public record Config(int serverThreads, int handlerThreads, long idleSpinNanos, long repollNanos,
                         long callTimeoutNanos, long deferredTimeoutNanos, long serviceTimeoutNanos,
                         boolean handlerCallsHere) {
        public Config {
            if (serverThreads < 1 || handlerThreads < 1) {
                throw new IllegalArgumentException("at least one server and one handler thread are needed");
            }
            if (idleSpinNanos < 0 || repollNanos < 1_000 || callTimeoutNanos < 1_000_000 || deferredTimeoutNanos < 1_000_000
                    || serviceTimeoutNanos < 1_000_000) {
                throw new IllegalArgumentException("idle spin >= 0, re-poll >= 1 us, call, deferred and service timeouts "
                        + ">= 1 ms, were " + idleSpinNanos + ", " + repollNanos + ", " + callTimeoutNanos + ", "
                        + deferredTimeoutNanos + ", " + serviceTimeoutNanos);
            }
        }
    }

    private final PortSet ports;
    private final OpcodeRegistry registry;
    private final Config config;
    /** How an idle server thread idles: the services' strategy, parks from {@link #MIN_REPOLL_NANOS} doubling to the repoll period. */
    private final IdleStrategy idle;
    /** How the substitute rests while no handler call runs on a server thread: parks of {@link #SUBSTITUTE_REST_NANOS}. */
    private final IdleStrategy resting;
    /** Each agent's view of SVM by agent index: a call's buffers are touched through its caller's. */
    private final Svm[] views;
    /** The server threads by index; the watchdog replaces a stuck one. */
    private final AtomicReferenceArray<Thread> scanners;
    /** The server threads' workers by index, as the watchdog sees them. */
    private final AtomicReferenceArray<Worker> scannerWorkers;
    private final String name;
    /** Threads moved aside by the watchdog whose stuck service has not returned yet. */
    private final AtomicInteger movedAside = new AtomicInteger();
    private final LongAdder stuckCalls = new LongAdder();
    private int generations;
    private final AtomicIntegerArray states;
    private final HandlerPool handlers;
    /** The runtime's tracer: each served call reports to it (chosen once by the runtime). */
    private final Tracer tracer;
    /** Deferred replies' deadlines: one daemon thread, timers removed when their call ends first. */
    private final ScheduledThreadPoolExecutor timers;
    private final SignalWaiter doorbellWaiter = s -> wakeOne();
    private final Map<Long, Long> abortedDispatches = new LinkedHashMap<>(16, 0.75f, false) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<Long, Long> eldest) {
            return size() > ABORTED_DISPATCHES_KEPT;
        }
    };
    private volatile int abortedCount;
    private volatile boolean running = true;
    /**
     * Calls served per server thread, one slot each on its own cache line (index {@code
     * (thread + 1) * COUNTER_STRIDE}), written by its thread alone with a release store: counting
     * costs a port call no atomic read-modify-write. Summed on read with {@link #servedElsewhere}.
     */
    private final AtomicLongArray servedByScanner;
    /** Calls served on other threads ({@link #serveOnThisThread}: agent dispatch packets). */
    private final LongAdder servedElsewhere = new LongAdder();
    private final LongAdder doorbellWakeups = new LongAdder();
    private final LongAdder repollFinds = new LongAdder();
    private final LongAdder timeouts = new LongAdder();
    /** Marks device ports pending for their clients, or null when the set has none. */
    private final DevicePortWatcher deviceWatcher;
    /**
     * The port plus one of the {@link ServiceMode#HANDLER} call a server thread runs on its own
     * thread (see {@link #runHandlerCallHere}), else 0: at most one at a time, so the substitute covers it.
     */
    private final AtomicInteger handlerCallHere = new AtomicInteger();
    /** The substitute server thread: scans for the server thread running a handler call on its own thread. */
    private volatile Thread substitute;
    private volatile Worker substituteWorker;
    /** The substitute's state: {@link #RUNNING}, {@link #SLEEPING} or {@link #WOKEN}. */
    private final AtomicInteger substituteState = new AtomicInteger();
    private final LongAdder handlerCallsHere = new LongAdder();
    private final LongAdder substituteWakeups = new LongAdder();

    /** Starts {@code config.serverThreads()} server threads and the handler pool over {@code ports}. */
    public RpcServer(PortSet ports, OpcodeRegistry registry, Config config, String name) {
        this.ports = Objects.requireNonNull(ports, "ports");
        this.registry = Objects.requireNonNull(registry, "registry");
        this.config = Objects.requireNonNull(config, "config");
        this.idle = ports.serverIdle.withParks(Math.min(MIN_REPOLL_NANOS, config.repollNanos()), config.repollNanos());
        this.resting = ports.serverIdle.withParks(SUBSTITUTE_REST_NANOS, SUBSTITUTE_REST_NANOS);
        this.views = agentViews(ports.runtime().agents());
        this.tracer = ports.runtime().tracer();
        this.name = name;
        this.handlers = new HandlerPool(config.handlerThreads(), ports.ports(), this::run, name);
        this.timers = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, name + "-timers");
            t.setDaemon(true);
            return t;
        });
        timers.setRemoveOnCancelPolicy(true);
        this.scanners = new AtomicReferenceArray<>(config.serverThreads());
        this.scannerWorkers = new AtomicReferenceArray<>(config.serverThreads());
        this.states = new AtomicIntegerArray(config.serverThreads());
        this.servedByScanner = new AtomicLongArray((config.serverThreads() + 2) * COUNTER_STRIDE);
        ports.doorbell().addWaiter(doorbellWaiter);
        for (int i = 0; i < config.serverThreads(); i++) {
            startScanner(i, 0);
        }
        startSubstitute(0);
        this.deviceWatcher = ports.devicePorts() > 0 ? new DevicePortWatcher(this, ports, name) : null;
        long period = Math.max(1_000_000, config.serviceTimeoutNanos() / 4);
        timers.scheduleAtFixedRate(this::watchdog, period, period, TimeUnit.NANOSECONDS);
    }

    /** Starts incarnation {@code generation} of server thread {@code index}. */
    private void startScanner(int index, int generation) {
        Worker worker = new Worker();
        Thread t = new Thread(() -> scan(index, worker), name + "-server-" + index + (generation == 0 ? "" : "." + generation));
        t.setDaemon(true);
        scannerWorkers.set(index, worker);
        scanners.set(index, t);
        t.start();
    }

    /** Starts incarnation {@code generation} of the substitute server thread. */
    private void startSubstitute(int generation) {
        Worker worker = new Worker();
        Thread t = new Thread(() -> substitute(worker), name + "-substitute" + (generation == 0 ? "" : "." + generation));
        t.setDaemon(true);
        substituteWorker = worker;
        substitute = t;
        t.start();
    }

    private static Svm[] agentViews(List<Agent> agents) {
        int n = 0;
        for (Agent a : agents) {
            n = Math.max(n, a.svm().agentIndex() + 1);
        }
        Svm[] views = new Svm[n];
        for (Agent a : agents) {
            views[a.svm().agentIndex()] = a.svm();
        }
        return views;
    }

    /** The view of SVM of the agent with index {@code agent}, or null when the runtime has none. */
    Svm agentView(int agent) {
        return agent >= 0 && agent < views.length ? views[agent] : null;
    }

    /** The registry this server looks opcodes up in. */
    public OpcodeRegistry registry() {
        return registry;
    }

    /** The port set served. */
    public PortSet ports() {
        return ports;
    }

    /** The configuration. */
    public Config config() {
        return config;
    }

    long idleSpinNanos() {
        return config.idleSpinNanos();
    }

    long callTimeoutNanos() {
        return config.callTimeoutNanos();
    }

    boolean isRunning() {
        return running;
    }

    /** Calls that reached a service or were answered with an error status. */
    public long callsServed() {
        long sum = servedElsewhere.sum();
        for (int i = 0; i <= scanners.length(); i++) { // the last slot is the substitute's
            sum += servedByScanner.get((i + 1) * COUNTER_STRIDE);
        }
        return sum;
    }

    /** Times a sleeping server thread was woken through the doorbell. */
    public long doorbellWakeups() {
        return doorbellWakeups.sum();
    }

    /** Times a server thread found work right after a timed re-poll (nobody rang the doorbell). */
    public long repollFinds() {
        return repollFinds.sum();
    }

    /** {@link ServiceMode#HANDLER} calls a server thread ran on its own thread instead of handing them to a handler. */
    public long handlerCallsServedHere() {
        return handlerCallsHere.sum();
    }

    /** Times the substitute server thread was woken to scan while a server thread ran a handler call. */
    public long substituteWakeups() {
        return substituteWakeups.sum();
    }

    /** Calls given up because the client sent no packet within the call timeout, or a deferred reply passed its deadline. */
    public long timeouts() {
        return timeouts.sum();
    }

    void countTimeout() {
        timeouts.increment();
    }

    /** Calls the watchdog ended because their service ran past the service timeout. */
    public long stuckCalls() {
        return stuckCalls.sum();
    }

    /** The server and handler threads, for diagnostics (CPU accounting). */
    public Thread[] threads() {
        Thread[] h = handlers.threads();
        int n = scanners.length();
        Thread[] all = new Thread[n + 1 + h.length];
        for (int i = 0; i < n; i++) {
            all[i] = scanners.get(i);
        }
        all[n] = substitute;
        System.arraycopy(h, 0, all, n + 1, h.length);
        return all;
    }

    // ---- aborted dispatches ---------------------------------------------------------------------

    /** Refuses every later call of the dispatch identified by {@code dispatch} and {@code packet}. */
    public void abortDispatch(long dispatch, long packet) {
        synchronized (abortedDispatches) {
            abortedDispatches.put(dispatchKey(dispatch, packet), packet);
            abortedCount = abortedDispatches.size();
        }
    }

    /** True when calls of that dispatch are refused. */
    public boolean isAborted(long dispatch, long packet) {
        if (abortedCount == 0 || (dispatch == 0 && packet == 0)) {
            return false;
        }
        synchronized (abortedDispatches) {
            Long p = abortedDispatches.get(dispatchKey(dispatch, packet));
            return p != null && p == packet;
        }
    }

    private static long dispatchKey(long dispatch, long packet) {
        return dispatch * 0x9E3779B97F4A7C15L ^ packet;
    }

    // ---- server threads -------------------------------------------------------------------------

    private void scan(int index, Worker worker) {
        long sleepers = RpcLayout.SET_SLEEPERS;
        long spinBudget = config.idleSpinNanos();
        long maxSpin = Math.max(config.idleSpinNanos(), MAX_ADAPTIVE_SPIN_NANOS);
        // one idle stretch's progress: busy for the adaptive budget, then parks backing off to the repoll period
        Idler idler = null;
        boolean afterRepoll = false;
        Watch watch = new Watch((index + 1) * COUNTER_STRIDE, worker, true);
        try {
            while (running) {
                if (serveWatched(watch) || scanOnce(watch)) {
                    if (worker.retired()) {
                        return; // moved aside while stuck in a service: a fresh thread serves in its place
                    }
                    if (afterRepoll) {
                        repollFinds.increment();
                    }
                    afterRepoll = false;
                    idler = null;
                    continue;
                }
                if (idler == null) {
                    idler = idle.idler(spinBudget).blocker(this);
                }
                if (!idler.parksNext()) {
                    idler.idle();
                    continue;
                }
                if (watch.port >= 0) {
                    unwatch(watch);
                    continue;
                }
                states.set(index, SLEEPING);
                ports.addInt(sleepers, 1);
                boolean pending = anyPending();
                long asleep = System.nanoTime();
                if (!pending && running) {
                    idler.idle(config.repollNanos());
                }
                ports.addInt(sleepers, -1);
                boolean woken = states.getAndSet(index, RUNNING) == WOKEN;
                long now = System.nanoTime();
                if (woken) {
                    doorbellWakeups.increment();
                    if (now - asleep < 4 * spinBudget) {
                        spinBudget = Math.min(spinBudget * 2, maxSpin);
                    }
                } else if (!pending) {
                    spinBudget = Math.max(config.idleSpinNanos(), spinBudget / 2);
                }
                boolean spin = woken || pending;
                afterRepoll = !spin;
                if (spin) {
                    idler = null;
                }
            }
        } finally {
            if (watch.port >= 0 && !ports.isFreed()) {
                ports.storeIntRelease(ports.portOffset(watch.port) + RpcLayout.SERVER_WATCH, 0);
                releaseClaim(watch.port);
            }
        }
    }

    /**
     * A scanning thread's own state: the port it watches between calls (it holds its claim), or -1,
     * its counter, its worker, and whether it is a server thread proper (it may watch ports and run
     * handler calls on its own thread) or the substitute (it does neither).
     */
    private static final class Watch {
        /** Index of the thread's slot in {@link #servedByScanner}. */
        final int counter;
        final Worker worker;
        final boolean scanner;
        int port = -1;

        Watch(int counter, Worker worker, boolean scanner) {
            this.counter = counter;
            this.worker = worker;
            this.scanner = scanner;
        }
    }

    /**
     * The substitute server thread: asleep (parks of a second, one wake-up a second) until a client rings the
     * doorbell while a server thread runs a handler call on its own thread; then it scans as a
     * server thread does, handing handler calls to the pool, and sleeps with timed re-polls while
     * such a call lasts. It never watches a port, so it holds no claim when it sleeps.
     */
    private void substitute(Worker worker) {
        Watch watch = new Watch((config.serverThreads() + 1) * COUNTER_STRIDE, worker, false);
        Idler idler = null;
        while (running) {
            if (handlerCallHere.get() == 0) {
                // nothing to cover: rest until wakeOne finds a handler call here and another port pending
                sleepSubstitute(resting.idler(0).blocker(this), false);
                idler = null;
                continue;
            }
            if (scanOnce(watch)) {
                if (worker.retired()) {
                    return;
                }
                idler = null;
                continue;
            }
            if (idler == null) {
                idler = idle.idler(config.idleSpinNanos()).blocker(this);
            }
            if (!idler.parksNext()) {
                idler.idle();
            } else if (sleepSubstitute(idler, true)) {
                idler = null;
            }
        }
    }

    /**
     * Parks the substitute once through {@code idler} unless there is work: while {@code covering}
     * (a handler call runs here) a pending port, else such a call beginning. It registers as
     * sleeping before that last look, and wakeOne reads the token and the bitmap before that
     * state: one of the two sees the other. True when wakeOne unparked it.
     */
    private boolean sleepSubstitute(Idler idler, boolean covering) {
        substituteState.set(SLEEPING);
        boolean work = covering ? anyPending() : handlerCallHere.get() != 0;
        if (running && !work) {
            idler.idle(covering ? config.repollNanos() : Long.MAX_VALUE);
        }
        if (substituteState.getAndSet(RUNNING) == WOKEN) {
            substituteWakeups.increment();
            return true;
        }
        return false;
    }

    /** Counts a call served by the thread owning {@code watch} (it alone writes its slot). */
    private void countServed(Watch watch) {
        servedByScanner.lazySet(watch.counter, servedByScanner.get(watch.counter) + 1);
    }

    /**
     * Serves the watched port's next packet when its client flipped, under the claim this thread
     * holds. The watch word stays set until this thread's next packet, which writes it again: the
     * client cannot post before that packet. True when there was a packet.
     */
    private boolean serveWatched(Watch watch) {
        int p = watch.port;
        if (p < 0) {
            return false;
        }
        long port = ports.portOffset(p);
        if (ports.loadIntAcquire(port + RpcLayout.CLIENT_FLAG) == ports.getInt(port + RpcLayout.SERVER_FLAG)) {
            return false;
        }
        // watch.port is written only when it changes: the thread's own object, but a write on
        // every call would also dirty whatever line it shares with other objects
        if (!serveClaimed(p, true, watch)) {
            watch.port = -1;
        }
        return true;
    }

    /**
     * Stops watching: clears the watch with a screlease store, then reads the client flag once more
     * (a client that flipped before it saw the watch cleared set no pending bit) and serves a packet
     * found there, or releases the claim.
     */
    private void unwatch(Watch watch) {
        int p = watch.port;
        watch.port = -1;
        long port = ports.portOffset(p);
        ports.storeIntRelease(port + RpcLayout.SERVER_WATCH, 0);
        if (ports.loadIntAcquire(port + RpcLayout.CLIENT_FLAG) != ports.getInt(port + RpcLayout.SERVER_FLAG)) {
            serveClaimed(p, false, watch);
        } else {
            releaseClaim(p);
        }
    }

    /**
     * Gives the watched port back to every server thread before this one serves another port's
     * call (which may take long): clears the watch (screlease) and releases the claim, whose
     * re-check of the flags marks the port pending (and wakes a thread) when its client flipped
     * before it saw the watch cleared; a client flipping after that marks it pending itself. So a
     * watched port waits for no other port's call while another server thread could serve it.
     */
    private void dropWatch(Watch watch) {
        int p = watch.port;
        watch.port = -1;
        ports.storeIntRelease(ports.portOffset(p) + RpcLayout.SERVER_WATCH, 0);
        releaseClaim(p);
    }

    /**
     * Unparks one sleeping server thread, if any; when none sleeps and a server thread runs a
     * handler call on its own thread, unparks the substitute in its place.
     */
    void wakeOne() {
        for (int i = 0, n = states.length(); i < n; i++) {
            if (states.get(i) == SLEEPING && states.compareAndSet(i, SLEEPING, WOKEN)) {
                LockSupport.unpark(scanners.get(i));
                return;
            }
        }
        int here = handlerCallHere.get();
        if (here != 0 && substituteState.get() == SLEEPING && otherPortPending(here - 1)
                && substituteState.compareAndSet(SLEEPING, WOKEN)) {
            LockSupport.unpark(substitute);
        }
    }

    /**
     * True when a port other than {@code p} is pending: {@code p}'s own bit is its client's packet
     * in the middle of the call served here (a payload exchange), which that call reads itself.
     */
    private boolean otherPortPending(int p) {
        for (int w = 0, n = ports.pendingWords(); w < n; w++) {
            long bits = ports.loadLongAcquire(PortSet.pendingWordOffset(w));
            if (w == p >>> 6) {
                bits &= ~(1L << p);
            }
            if (bits != 0) {
                return true;
            }
        }
        return false;
    }

    private boolean anyPending() {
        for (int w = 0, n = ports.pendingWords(); w < n; w++) {
            if (ports.loadLongAcquire(PortSet.pendingWordOffset(w)) != 0) {
                return true;
            }
        }
        return false;
    }

    /** One pass over the pending bitmap; true when some port was taken. */
    private boolean scanOnce(Watch watch) {
        boolean any = false;
        for (int w = 0, n = ports.pendingWords(); w < n; w++) {
            long word = PortSet.pendingWordOffset(w);
            long bits = ports.loadLongRelaxed(word);
            while (bits != 0) {
                long bit = Long.lowestOneBit(bits);
                long before = ports.andLong(word, ~bit);
                bits = before & ~bit;
                if ((before & bit) != 0) {
                    any = true;
                    if (bits != 0) {
                        wakeOne();
                    }
                    int p = (w << 6) | Long.numberOfTrailingZeros(bit);
                    if (watch.port >= 0 && watch.port != p) {
                        dropWatch(watch);
                    }
                    if (servePort(p, watch.scanner && watch.port < 0, watch)) {
                        watch.port = p;
                    }
                }
            }
        }
        return any;
    }

    /** Claims port {@code p} and serves its packet; true when the caller now watches the port (see {@link #serveClaimed}). */
    private boolean servePort(int p, boolean mayWatch, Watch watch) {
        long port = ports.portOffset(p);
        if (ports.compareExchangeInt(port + RpcLayout.SERVER_CLAIM, 0, 1) != 0) {
            return false;
        }
        return serveClaimed(p, mayWatch, watch);
    }

    /**
     * Serves the packet of port {@code p}, whose claim this thread holds. With {@code mayWatch}, a
     * call that ends on this thread before this returns keeps the claim and sets the port's watch:
     * true then, and the thread watches the port. Otherwise the claim is released, now or when the
     * call ends.
     */
    private boolean serveClaimed(int p, boolean mayWatch, Watch watch) {
        long port = ports.portOffset(p);
        int serverFlag = ports.loadIntAcquire(port + RpcLayout.SERVER_FLAG);
        if (ports.loadIntAcquire(port + RpcLayout.CLIENT_FLAG) == serverFlag) {
            releaseClaim(p);
            return false;
        }
        int kind = ports.getInt(port + RpcLayout.KIND);
        int left = ports.abandoned.get(p) == 0 ? 0 : ports.abandoned.getAndSet(p, 0);
        if (kind != RpcLayout.KIND_OPEN) {
            RpcStatus s = left > 0 ? RpcStatus.of(left - 1)
                    : kind == RpcLayout.KIND_CANCEL ? RpcStatus.CANCELLED : RpcStatus.PROTOCOL_ERROR;
            ports.setInt(port + RpcLayout.STATUS, s.finalWord());
            ports.setInt(port + RpcLayout.SERVER_WATCH, 0);
            ports.storeIntRelease(port + RpcLayout.SERVER_FLAG, serverFlag ^ 1);
            Thread client = ports.clientWaiters.get(p);
            if (client != null) {
                LockSupport.unpark(client);
            }
            ports.wakePortWaiter();
            releaseClaim(p);
            return false;
        }
        countServed(watch);
        OpcodeRegistry.Entry entry = registry.lookup(ports.getInt(port + RpcLayout.OPCODE));
        if (entry != null && CoreService.answersInPlace(entry) && laneMaskValid(ports.getLong(port + RpcLayout.LANE_MASK))
                && !(abortedCount != 0 && isAborted(ports.getLong(port + RpcLayout.CALLER_DISPATCH),
                        ports.getLong(port + RpcLayout.CALLER_PACKET)))) {
            tracer.callBegins().ended(entry.name(), entry.opcode(), RpcStatus.OK.name());
            return answerInPlace(p, serverFlag, mayWatch);
        }
        PortCall call = new PortCall(this, ports, p, serverFlag);
        if (!ports.serverSlot(p).register(call)) {
            // its caller cancelled it before this thread made it: it ends without running
            call.finish(RpcStatus.CANCELLED);
            return false;
        }
        if (mayWatch) {
            call.allowWatch();
        }
        dispatch(call, call.wellFormed(), watch.worker, watch.scanner && config.handlerCallsHere());
        return call.endWatch();
    }

    /** True when {@code laneMask} names some lanes and only lanes a port has. */
    boolean laneMaskValid(long laneMask) {
        int lanes = ports.lanes();
        long allowed = lanes == 64 ? -1L : (1L << lanes) - 1;
        return laneMask != 0 && (laneMask & ~allowed) == 0;
    }

    /**
     * Ends the OPEN packet of port {@code p} with OK as it stands, on this thread, without a
     * {@link PortCall}: for the core functions whose results are already in the lanes (NOP has
     * none, ECHO's are its arguments), so the round trip is the flag flips and this thread's
     * checks. Same final packet, watch and claim handling as {@link PortCall#complete}.
     */
    private boolean answerInPlace(int p, int serverFlag, boolean mayWatch) {
        long port = ports.portOffset(p);
        boolean watch = mayWatch && running;
        ports.setIntIfChanged(port + RpcLayout.STATUS, RpcStatus.OK.finalWord());
        ports.setIntIfChanged(port + RpcLayout.SERVER_WATCH, watch ? 1 : 0);
        ports.storeIntRelease(port + RpcLayout.SERVER_FLAG, serverFlag ^ 1);
        Thread client = ports.clientWaiters.get(p);
        if (client != null) {
            LockSupport.unpark(client);
        }
        ports.wakePortWaiter();
        if (!watch) {
            releaseClaim(p);
        }
        return watch;
    }

    /**
     * Routes a call to its service (an INLINE one on {@code worker}'s thread, a HANDLER one there
     * too when {@code mayRunHere} and {@link #runHandlerCallHere} allows), or answers it with an
     * error status.
     */
    void dispatch(ServerCall call, boolean wellFormed, Worker worker, boolean mayRunHere) {
        if (!wellFormed) {
            call.finish(RpcStatus.BAD_REQUEST);
            return;
        }
        if (isAborted(call.callerDispatch(), call.callerPacket())) {
            call.finish(RpcStatus.ABORTED);
            return;
        }
        OpcodeRegistry.Entry entry = registry.lookup(call.opcode());
        if (entry == null) {
            call.finish(RpcStatus.UNKNOWN_OPCODE);
            return;
        }
        if (entry.mode() == ServiceMode.INLINE) {
            run(entry, call, worker);
        } else if (!mayRunHere || !(call instanceof PortCall pc) || !runHandlerCallHere(entry, pc, worker)) {
            handlers.submit(entry, call);
        }
    }

    /**
     * Runs a {@link ServiceMode#HANDLER} call on this server thread instead of handing it to a
     * handler thread, when no other server thread does so now and no other port waits: false
     * (nothing run) otherwise. While it runs, this thread counts itself among the set's sleepers,
     * so a client that posts to another port meanwhile rings the doorbell, and {@link #wakeOne}
     * unparks the substitute to scan in its place: a call that blocks (a pipe read) stalls no other
     * port's call. The count comes before the last look at the bitmap (both volatile, as a client's
     * pending bit comes before its read of the count): a client posting after that look rings.
     */
    private boolean runHandlerCallHere(OpcodeRegistry.Entry entry, PortCall call, Worker worker) {
        if (handlerCallHere.get() != 0 || !handlerCallHere.compareAndSet(0, call.port() + 1)) {
            return false;
        }
        long sleepers = RpcLayout.SET_SLEEPERS;
        ports.addInt(sleepers, 1);
        try {
            if (anyPending()) {
                return false;
            }
            handlerCallsHere.increment();
            run(entry, call, worker);
            return true;
        } finally {
            ports.addInt(sleepers, -1);
            handlerCallHere.set(0);
        }
    }

    /**
     * Serves a call that arrived by another transport (an agent dispatch packet) on the calling
     * thread, with the same checks as a port call; a deferred call ends later on another thread.
     */
    public void serveOnThisThread(ServerCall call) {
        servedElsewhere.increment();
        if (isAborted(call.callerDispatch(), call.callerPacket())) {
            call.finish(RpcStatus.ABORTED);
            return;
        }
        OpcodeRegistry.Entry entry = registry.lookup(call.opcode());
        if (entry == null) {
            call.finish(RpcStatus.UNKNOWN_OPCODE);
            return;
        }
        run(entry, call, null);
    }

    /**
     * Runs a service on the current thread and ends its call unless the service deferred it;
     * {@code worker} (null for another transport's thread) shows the watchdog what runs.
     */
    void run(OpcodeRegistry.Entry entry, ServerCall call, Worker worker) {
        if (call.isFinished()) {
            return; // cancelled while it waited in the handler ring
        }
        if (worker != null) {
            worker.enter(call);
        }
        // the trace hears of the call before its caller is answered, so it is recorded before the caller goes on
        CallTrace trace = tracer.callBegins();
        try {
            // the call is a system-scope acquire on the thread that serves it: in fidelity mode it
            // drops its stale copies of what the caller wrote before the call (the caller released)
            Svm.fence(MemoryOrder.ACQUIRE, MemoryScope.SYSTEM);
            entry.service().serve(call);
            if (!call.isDeferred()) {
                // a call the watchdog (TIMEOUT) or its caller (cancel) ended while the service ran
                trace.ended(entry.name(), call.opcode(), call.isFinished() ? "ENDED_BEFORE_RETURN" : RpcStatus.OK.name());
                call.finish(RpcStatus.OK);
            } else {
                trace.ended(entry.name(), call.opcode(), "DEFERRED");
                armDeadline(call);
            }
        } catch (CallEndedException e) {
            trace.ended(entry.name(), call.opcode(), e.status().name());
            call.finish(e.status());
        } catch (Throwable t) {
            LOG.log(System.Logger.Level.WARNING, "service " + entry.name() + " failed on opcode "
                    + Opcodes.toString(call.opcode()), t);
            trace.ended(entry.name(), call.opcode(), RpcStatus.SERVICE_ERROR.name());
            call.finish(RpcStatus.SERVICE_ERROR);
        } finally {
            if (worker != null && worker.exit()) {
                movedAside.decrementAndGet();
            }
        }
    }

    // ---- the watchdog ---------------------------------------------------------------------------

    /**
     * Runs every quarter of the service timeout on the timer thread: a worker seen running the same
     * call for the service timeout is stuck. Its call ends with TIMEOUT (its caller gets the status
     * and its port back; the service, if it ever returns, writes nothing to the port), and its
     * thread is moved aside: a fresh thread takes its place, and the stuck one ends once its
     * service returns. So one stuck service never stops the others: not the calls of a stuck
     * INLINE service's server thread, not printf and file I/O behind stuck handlers. At most
     * {@link #MAX_MOVED_ASIDE} threads may be stuck at once; past that the calls still end, but no
     * thread is added.
     */
    private void watchdog() {
        long now = System.nanoTime();
        for (int i = 0, n = scannerWorkers.length(); i < n; i++) {
            Worker w = scannerWorkers.get(i);
            if (isStuck(w, now) && moveAside(w)) {
                startScanner(i, ++generations);
            }
        }
        for (int i = 0, n = handlers.size(); i < n; i++) {
            Worker w = handlers.worker(i);
            if (isStuck(w, now) && moveAside(w)) {
                handlers.replace(i, ++generations);
            }
        }
        Worker s = substituteWorker;
        if (isStuck(s, now) && moveAside(s)) {
            startSubstitute(++generations);
        }
    }

    private boolean isStuck(Worker w, long now) {
        ServerCall c = w.running();
        if (c == null || c != w.seen) {
            w.seen = c;
            w.seenSince = now;
            return false;
        }
        return now - w.seenSince >= config.serviceTimeoutNanos();
    }

    /**
     * Ends the stuck worker's call with TIMEOUT and retires the worker if its thread is still in
     * that call: true when it did, and a fresh thread is to take its place.
     */
    private boolean moveAside(Worker w) {
        ServerCall c = w.seen;
        w.seen = null;
        if (!running) {
            return false;
        }
        if (c.abandon(RpcStatus.TIMEOUT)) {
            timeouts.increment();
            stuckCalls.increment();
        }
        boolean retired = movedAside.incrementAndGet() <= MAX_MOVED_ASIDE && w.retire(c);
        if (!retired) {
            movedAside.decrementAndGet();
        } else {
            LOG.log(System.Logger.Level.WARNING, "a service ran past " + config.serviceTimeoutNanos() / 1_000_000
                    + " ms on opcode " + Opcodes.toString(c.opcode()) + ": its call ended with TIMEOUT and its thread "
                    + "was moved aside");
        }
        return retired;
    }

    /** Ends the deferred {@code call} with TIMEOUT if it has not ended by its deadline. */
    private void armDeadline(ServerCall call) {
        if (call.isFinished()) {
            return;
        }
        try {
            call.deadline(timers.schedule(() -> {
                if (call.abandon(RpcStatus.TIMEOUT)) {
                    timeouts.increment();
                }
            }, config.deferredTimeoutNanos(), TimeUnit.NANOSECONDS));
        } catch (RejectedExecutionException closing) {
            // the server is stopping: its callers end with CLOSED
        }
    }

    /**
     * Releases the server claim of port {@code p}; if the client handed the turn over meanwhile
     * (its pending bit may have been dropped while the claim was held), marks the port pending again.
     */
    void releaseClaim(int p) {
        long port = ports.portOffset(p);
        ports.storeIntRelease(port + RpcLayout.SERVER_CLAIM, 0);
        if (ports.loadIntAcquire(port + RpcLayout.SERVER_FLAG) != ports.loadIntAcquire(port + RpcLayout.CLIENT_FLAG)) {
            ports.markPending(p);
            wakeOne();
        }
    }

    /**
     * Stops serving: marks the ports closed (waiting clients end with CLOSED), stops the server
     * threads and then the handler threads, each waiting up to {@code timeoutMillis}.
     */
    public void stop(long timeoutMillis) {
        if (!running) {
            return;
        }
        running = false;
        ports.markClosed();
        ports.doorbell().removeWaiter(doorbellWaiter);
        for (int i = 0; i < scanners.length(); i++) {
            LockSupport.unpark(scanners.get(i));
        }
        LockSupport.unpark(substitute);
        for (int i = 0; i <= scanners.length(); i++) {
            Thread t = i < scanners.length() ? scanners.get(i) : substitute;
            try {
                t.join(timeoutMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        if (deviceWatcher != null) {
            deviceWatcher.stop(timeoutMillis);
        }
        handlers.stop(timeoutMillis);
        timers.shutdownNow();
    }

    @Override
    public void close() {
        stop(2_000);
    }
}
