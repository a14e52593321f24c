package org.hsa4j.kernel;

import java.util.Locale;

import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * How the work-items of one workgroup of a barrier kernel run on their compute unit: the part of
 * {@link WorkgroupExecutor} that a barrier needs. Chosen once per JVM from
 * {@code -Dhsa4j.barriers} or {@code HSA4J_BARRIERS}; each executor makes its own instance.
 *
 * <h2>Why work-item threads by default</h2>
 * A work-item that waits at a barrier must keep its Java stack (its locals, its loop counters,
 * the frames of the methods it called) until every other work-item of its group has arrived, and
 * a kernel is arbitrary Java code. Only two things in the JDK keep a stack aside: a thread, and
 * the one-shot continuation under virtual threads ({@code jdk.internal.vm.Continuation}), which is
 * internal and needs {@code --add-exports java.base/jdk.internal.vm=ALL-UNNAMED}, a flag a library
 * on the class path cannot supply to its users. Splitting the kernel into phases at each barrier
 * needs its bytecode rewritten; the C++AMP layer does that for the tiled kernels it can analyse
 * ({@code TileCompiler}) and then needs no barrier here at all. For the rest:
 *
 * <ul>
 * <li>{@link VirtualThreadBarriers} ({@code threads}, the default, supported API only): each
 *     work-item index has a virtual thread, kept for the executor's life. The work-items run one at
 *     a time, handing a baton through a volatile index; a work-item at a barrier passes the baton
 *     on and parks. So a group behaves as it does on continuations: one core per unit, the unit's
 *     L1 of fidelity mode touched by one thread at a time, a partial barrier detected exactly. A
 *     hand-off costs a virtual-thread park and unpark (a scheduler round trip), several times a
 *     continuation switch.</li>
 * <li>{@link ContinuationBarriers} ({@code continuations}, opt-in, needs the export): the unit's
 *     own thread resumes each work-item's continuation in turn. Cheapest switch; barrier kernels
 *     fail with EXCEPTION naming the flag when it is missing.</li>
 * </ul>
 * A per-work-item platform thread was not considered: a workgroup of 1024 would need 1024
 * threads per unit and a futex wake per hand-off.
 */
abstract class BarrierStrategy implements AutoCloseable {
    /** The environment variable that picks the strategy. */
    static final String VARIABLE = "HSA4J_BARRIERS";
    /** The system property that picks the strategy (wins over the variable). */
    static final String PROPERTY = "hsa4j.barriers";
    static final String THREADS = "threads";
    static final String CONTINUATIONS = "continuations";

    /** The configured strategy's name, or null when the setting is bad (see {@link #SETTING_ERROR}). */
    static final String CONFIGURED;
    /** Why the setting is bad, or null. */
    static final String SETTING_ERROR;

    static {
        String raw = System.getProperty(PROPERTY);
        String source = "-D" + PROPERTY;
        if (raw == null) {
            raw = System.getenv(VARIABLE);
            source = VARIABLE;
        }
        String name = null;
        String error = null;
        try {
            name = parse(raw, source);
        } catch (HsaException e) {
            error = e.getMessage().substring((HsaStatus.INVALID_ARGUMENT + ": ").length());
        }
        CONFIGURED = name;
        SETTING_ERROR = error;
    }

    /**
     * The strategy {@code raw} names ({@link #THREADS} when null); {@code source} names the setting.
     *
     * @throws HsaException INVALID_ARGUMENT for any other value
     */
    static String parse(String raw, String source) {
        String name = raw == null ? THREADS : raw.trim().toLowerCase(Locale.ROOT);
        if (!name.equals(THREADS) && !name.equals(CONTINUATIONS)) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, source + " must be " + THREADS + " or "
                    + CONTINUATIONS + ", was '" + raw + "'");
        }
        return name;
    }

    /** A new strategy of the configured kind, for one executor. */
    static BarrierStrategy configured() {
        if (SETTING_ERROR != null) {
            throw new HsaException(HsaStatus.INVALID_ARGUMENT, SETTING_ERROR);
        }
        return named(CONFIGURED);
    }

    /** A new strategy called {@code name} ({@link #THREADS} or {@link #CONTINUATIONS}). */
    static BarrierStrategy named(String name) {
        return switch (name) {
            case THREADS -> new VirtualThreadBarriers();
            case CONTINUATIONS -> new ContinuationBarriers();
            default -> throw new HsaException(HsaStatus.INVALID_ARGUMENT, "no barrier strategy '" + name + "'");
        };
    }

    /**
     * Runs work-items {@code items[0..n)} of one workgroup (bound by the executor) to their ends
     * through their barriers. Throws what a work-item threw (the first), or EXCEPTION when a
     * barrier was reached by only part of the group.
     */
    abstract void runGroup(WorkItem[] items, int n, Kernel kernel, String kernelName);

    /** Work-item {@code lane} of the running group waits at the barrier. */
    abstract void barrier(int lane);

    /** True while the unit's own thread is inside a barrier round (a watchdog reads it). */
    boolean inBarrierRound() {
        return false;
    }

    /** Unwinds a group whose unit thread blocks on a monitor a suspended work-item holds; false if none. */
    boolean rescueMonitorDeadlock() {
        return false;
    }

    /** The name of this strategy, as {@code HSA4J_BARRIERS} spells it. */
    abstract String name();

    /** Why this strategy cannot run barrier kernels here, or null when it can. */
    String unavailableReason() {
        return null;
    }

    /** Releases the strategy's threads; bounded. */
    @Override
    public void close() {
    }

    static HsaException partial(String kernelName, int waiting, int n, int finished) {
        return new HsaException(HsaStatus.EXCEPTION, String.format(
                "kernel %s: a workgroup barrier was reached by only %d of %d work-items; %d returned without it",
                kernelName, waiting, n, finished));
    }
}
