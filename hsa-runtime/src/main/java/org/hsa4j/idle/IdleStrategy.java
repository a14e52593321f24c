package org.hsa4j.idle;

import java.util.Map;

/**
 * How every thread of the runtime and the services waits: one bounded spin, then yields, then
 * parks with a back-off, with the phase bounds derived once from the machine.
 *
 * <h2>Phases</h2>
 * A wait that has not yet seen its condition idles in three phases, by the time since it began:
 * <ol>
 * <li>{@link Phase#SPIN} up to {@link #spinNanos()}: {@link Thread#onSpinWait()} between looks, the
 *     lowest latency when the thread being waited for runs on another core;</li>
 * <li>{@link Phase#YIELD} up to {@link #busyNanos()}: {@link Thread#yield()} between looks, so a
 *     thread sharing the waiter's core (the producer, say) runs;</li>
 * <li>{@link Phase#PARK} after that: {@code LockSupport.parkNanos}, starting at {@link #minParkNanos()}
 *     and doubling to {@link #maxParkNanos()}, capped by what the wait gives each step (its deadline,
 *     its re-check period). A site woken by an unpark (a signal's waiter list, a compute unit's
 *     wake) registers itself before its first park ({@link Idler#parksNext()}).</li>
 * </ol>
 *
 * <h2>Why the bounds come from the machine</h2>
 * A spinning thread holds a core. When the threads that will spin at once ({@code spinners}: the
 * processor-role holders, the host threads waiting, the service threads) are fewer than the
 * available processors, the thread waited for has a core of its own and a spin pays off; when they
 * are as many or more, every spin takes a core from the thread being waited for, so the spin phase
 * shrinks to about one cache-line round trip and the yield phase takes over. The constants the
 * eight hand-written loops carried ("for 2 cores") become one decision made here, once.
 *
 * <h2>Oversubscribed cores</h2>
 * Yields that return only after a time slice show that more threads want to run than there are
 * cores ({@link Oversubscription}, shared by a strategy and those derived from it). For a while
 * after that, waits made {@link #parkingUnderLoad()} (BLOCKED signal waits, the processor role's
 * scans: waits that park anyway once their budget is spent) skip their spin and yield phases and
 * park at once, as a thread pool's worker does, so the thread they wait for gets the core and an
 * unpark wakes them: a spin then holds a core that one of the two threads of a hand-off needs, and
 * a yield keeps the waiter runnable beside it. ACTIVE waits keep spinning and yielding (their
 * caller asked for the lowest latency), and busy waiting (below) never parks.
 *
 * <h2>A peer on the waiter's core</h2>
 * A spin also pays off only while the thread waited for runs on another core. Where the scheduler
 * put the two sides of a hand-off on one core (busy processes holding the others), a BLOCKED signal
 * wait skips its busy phases at once, by {@link CoreSharing}'s record of where the last completion
 * was signalled, so the unit's unpark hands the core over as a thread pool's does.
 *
 * <h2>Interrupt-like blocking and busy waiting</h2>
 * ROCm's {@code HSA_ENABLE_INTERRUPT} picks how a signal wait idles: 1 (the default) blocks on an
 * interrupt after a short spin, 0 polls. Here {@link #interrupt()} true parks after the yield phase;
 * false (busy waiting) never parks a wait: it yields until its condition or deadline, so every wait
 * stays bounded. Background idling (an idle compute unit, an idle service thread: strategies made
 * with {@link #background()}) parks in both modes, so an idle runtime never burns a core.
 *
 * <p>A strategy is immutable and made once from the configuration ({@code RuntimeConfig},
 * {@code ServicesConfig}); each wait site derives its variant at construction ({@link #withBusyNanos},
 * {@link #withParks}) and gets a fresh {@link Idler} per wait.
 */
public final class IdleStrategy {
    /** The environment variable of ROCm's switch: 0 busy-waits, anything else (or unset) blocks. */
    public static final String INTERRUPT_VARIABLE = "HSA_ENABLE_INTERRUPT";
    /** Spin phase when spinners leave a core free: a few cross-core round trips. */
    static final long ROOMY_SPIN_NANOS = 10_000;
    /** Spin phase when spinners outnumber cores: about one cross-core round trip, then yield. */
    static final long SCARCE_SPIN_NANOS = 1_000;
    /** Busy (spin + yield) budget before a wait parks, when spinners leave a core free. */
    static final long ROOMY_BUSY_NANOS = 20_000;
    /** Busy budget before a wait parks, when spinners outnumber cores. */
    static final long SCARCE_BUSY_NANOS = 5_000;
    /** First park of the back-off. */
    static final long MIN_PARK_NANOS = 1_000;
    /** Longest park of the back-off. */
    static final long MAX_PARK_NANOS = 1_000_000;
    /**
     * A park length that means no timer: the park lasts until an unpark (or an interrupt). Only for a
     * site whose every reason to wake is an unpark that cannot be lost (a compute unit marked parked).
     */
    public static final long UNTIMED = Long.MAX_VALUE;

    /** The three phases of a wait. */
    public enum Phase {
        /** {@link Thread#onSpinWait()} between looks. */
        SPIN,
        /** {@link Thread#yield()} between looks. */
        YIELD,
        /** {@code LockSupport.parkNanos} between looks. */
        PARK
    }

    private final long spinNanos;
    private final long busyNanos;
    private final long minParkNanos;
    private final long maxParkNanos;
    private final boolean interrupt;
    private final boolean mayPark;
    private final boolean roomy;
    /** What this strategy's family of waits saw of the machine's load (shared by the strategies derived from it). */
    private final Oversubscription load;
    /** Where the two sides of the runtime's hand-offs last ran (shared by the strategies derived from it). */
    private final CoreSharing sharing;
    /** True when the spin and yield phases park while cores are oversubscribed ({@link #parkingUnderLoad()}). */
    private final boolean parksUnderLoad;

    private IdleStrategy(long spinNanos, long busyNanos, long minParkNanos, long maxParkNanos, boolean interrupt,
                         boolean mayPark, boolean roomy, Oversubscription load, CoreSharing sharing, boolean parksUnderLoad) {
        if (spinNanos < 0 || busyNanos < spinNanos || minParkNanos < 1 || maxParkNanos < minParkNanos) {
            throw new IllegalArgumentException("need 0 <= spin <= busy and 1 <= minPark <= maxPark, were " + spinNanos
                    + ", " + busyNanos + ", " + minParkNanos + ", " + maxParkNanos);
        }
        this.spinNanos = spinNanos;
        this.busyNanos = busyNanos;
        this.minParkNanos = minParkNanos;
        this.maxParkNanos = maxParkNanos;
        this.interrupt = interrupt;
        this.mayPark = mayPark;
        this.roomy = roomy;
        this.load = load;
        this.sharing = sharing;
        this.parksUnderLoad = parksUnderLoad;
    }

    /**
     * The strategy for a machine with {@code processors} available processors on which
     * {@code spinners} threads may spin at once; {@code interrupt} false busy-waits.
     */
    public static IdleStrategy forMachine(int processors, int spinners, boolean interrupt) {
        if (processors < 1 || spinners < 1) {
            throw new IllegalArgumentException("processors and spinners must be >= 1, were " + processors + " and " + spinners);
        }
        boolean roomy = spinners < processors;
        return new IdleStrategy(roomy ? ROOMY_SPIN_NANOS : SCARCE_SPIN_NANOS, roomy ? ROOMY_BUSY_NANOS : SCARCE_BUSY_NANOS,
                MIN_PARK_NANOS, MAX_PARK_NANOS, interrupt, interrupt, roomy, new Oversubscription(), new CoreSharing(), false);
    }

    /** {@link #forMachine} with this JVM's available processors. */
    public static IdleStrategy forThisMachine(int spinners, boolean interrupt) {
        return forMachine(Runtime.getRuntime().availableProcessors(), spinners, interrupt);
    }

    /** The default strategy of this machine: one spinner, interrupt-like blocking. */
    public static IdleStrategy defaults() {
        return forThisMachine(1, true);
    }

    /**
     * The switch from {@code env}'s {@link #INTERRUPT_VARIABLE}: true (block) unless it is "0";
     * throws IllegalArgumentException for a value other than 0 or 1.
     */
    public static boolean interruptFromEnvironment(Map<String, String> env) {
        String v = env.get(INTERRUPT_VARIABLE);
        if (v == null || v.isBlank() || v.strip().equals("1")) {
            return true;
        }
        if (v.strip().equals("0")) {
            return false;
        }
        throw new IllegalArgumentException(INTERRUPT_VARIABLE + " must be 0 or 1, was '" + v + "'");
    }

    /**
     * This strategy with a busy (spin + yield) budget of {@code nanos} before parking: a site that
     * expects its condition soon (an ACTIVE signal wait, the processor role's scans). The spin phase
     * keeps its machine-derived bound unless the budget is shorter.
     */
    public IdleStrategy withBusyNanos(long nanos) {
        return new IdleStrategy(Math.min(spinNanos, nanos), nanos, minParkNanos, maxParkNanos, interrupt, mayPark, roomy, load, sharing, parksUnderLoad);
    }

    /** This strategy with its parks backing off from {@code minNanos} to {@code maxNanos} ({@link #UNTIMED}: no timer). */
    public IdleStrategy withParks(long minNanos, long maxNanos) {
        return new IdleStrategy(spinNanos, busyNanos, minNanos, maxNanos, interrupt, mayPark, roomy, load, sharing, parksUnderLoad);
    }

    /** This strategy for background idling (idle units, idle servers): it parks even when busy-waiting. */
    public IdleStrategy background() {
        return new IdleStrategy(spinNanos, busyNanos, minParkNanos, maxParkNanos, interrupt, true, roomy, load, sharing, parksUnderLoad);
    }

    /**
     * This strategy with its spin and yield phases turned into parks while cores are oversubscribed (see
     * "Oversubscribed cores"): for waits registered for an unpark that park anyway once their budget is spent.
     */
    public IdleStrategy parkingUnderLoad() {
        return new IdleStrategy(spinNanos, busyNanos, minParkNanos, maxParkNanos, interrupt, mayPark, roomy, load, sharing, true);
    }

    /** The phase a wait is in {@code elapsedNanos} after it began. */
    public Phase phase(long elapsedNanos) {
        return phase(elapsedNanos, busyNanos);
    }

    /** The phase {@code elapsedNanos} into a wait whose busy budget is {@code budgetNanos}. */
    Phase phase(long elapsedNanos, long budgetNanos) {
        if (elapsedNanos < Math.min(spinNanos, budgetNanos)) {
            return Phase.SPIN;
        }
        return elapsedNanos < budgetNanos || !mayPark ? Phase.YIELD : Phase.PARK;
    }

    /**
     * The phase {@code elapsedNanos} into a wait whose busy budget is {@code budgetNanos}, at clock
     * value {@code now}: a spin or yield phase parks instead while cores were lately oversubscribed.
     */
    Phase phase(long elapsedNanos, long budgetNanos, long now) {
        Phase p = phase(elapsedNanos, budgetNanos);
        return p != Phase.PARK && parksUnderLoad && mayPark && load.recent(now) ? Phase.PARK : p;
    }

    /** Records a yield of a wait of this strategy that began at {@code before} and returned at {@code after}. */
    void yielded(long before, long after) {
        load.yielded(before, after);
    }

    /**
     * The park length of the {@code parks}-th park of a wait (0-based): doubling from the minimum, capped
     * (a doubling past the range of a long is the maximum; {@link #UNTIMED} when the parks are untimed).
     */
    public long parkNanos(int parks) {
        int shift = Math.min(parks, 62);
        return minParkNanos > maxParkNanos >> shift ? maxParkNanos : Math.min(maxParkNanos, minParkNanos << shift);
    }

    /** Where the two sides of this strategy family's hand-offs last ran: a waiter on its peer's core parks at once. */
    public CoreSharing coreSharing() {
        return sharing;
    }

    /** A fresh per-wait cursor through the phases, starting now. */
    public Idler idler() {
        return new Idler(this, busyNanos, System::nanoTime);
    }

    /** A per-wait cursor with a busy budget of its own, {@code busyNanos}: for a site that adapts its budget. */
    public Idler idler(long busyNanos) {
        return new Idler(this, Math.max(0, busyNanos), System::nanoTime);
    }

    /** A per-wait cursor reading time from {@code clock} (tests step through the phases with it). */
    Idler idler(java.util.function.LongSupplier clock) {
        return new Idler(this, busyNanos, clock);
    }

    /** How long a wait spins with {@link Thread#onSpinWait()}. */
    public long spinNanos() {
        return spinNanos;
    }

    /** How long a wait stays busy (spins, then yields) before it parks. */
    public long busyNanos() {
        return busyNanos;
    }

    /** First park of a wait. */
    public long minParkNanos() {
        return minParkNanos;
    }

    /** Longest park of a wait ({@link #UNTIMED}: parks end only by an unpark). */
    public long maxParkNanos() {
        return maxParkNanos;
    }

    /** True for interrupt-like blocking ({@code HSA_ENABLE_INTERRUPT} unset or 1), false for busy waiting. */
    public boolean interrupt() {
        return interrupt;
    }

    /** True when waits of this strategy may park (interrupt-like blocking, or background idling). */
    boolean mayPark() {
        return mayPark;
    }

    /** True when the spinners leave a core free, so waits spin before they yield. */
    public boolean roomy() {
        return roomy;
    }

    @Override
    public String toString() {
        return (interrupt ? "interrupt" : "busy") + (mayPark ? "" : " (no park)") + ", spin " + spinNanos
                + " ns, busy " + busyNanos + " ns, park " + minParkNanos + ".." + maxParkNanos + " ns"
                + (roomy ? "" : " (cores scarce)") + (parksUnderLoad ? " (parks under load)" : "");
    }
}
