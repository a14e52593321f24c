package org.hsa4j.memory;

/**
 * Memory orders of the HSA memory model: the one vocabulary of the project's atomics, with HSA's
 * names ({@link #hsaName()}) as the reference. In the runtime's own atomics (signals, queue indices,
 * packet headers and {@link Svm} atomics) acquire and release are HSA's sequentially consistent
 * {@code scacquire} and {@code screlease}: they map to volatile accesses, so store buffering stays
 * forbidden. {@link #RELAXED} maps to opaque access: atomic and coherent, but unordered.
 * Read-modify-writes always run at volatile strength, which is a valid strengthening of every order.
 *
 * <table>
 * <caption>One order, its name in each API (explicit form first; the named shorthands are the same call)</caption>
 * <tr><th>order</th><th>HSA (reference)</th><th>{@code Signal}</th><th>{@link Svm} (and its views:
 *     {@code atomicLoad(i, order)}, {@code loadAcquire(i)}, ...)</th>
 *     <th>{@code CppMemoryOrder} (C++AMP views)</th></tr>
 * <tr><td>RELAXED</td><td>{@code relaxed}</td><td>{@code load(RELAXED)} = {@code loadRelaxed()}</td>
 *     <td>{@code atomicLoadInt(a, RELAXED, s)}; {@code loadIntRelaxed(a)}</td><td>RELAXED</td></tr>
 * <tr><td>ACQUIRE</td><td>{@code scacquire}</td><td>{@code load(ACQUIRE)} = {@code loadScacquire()}</td>
 *     <td>{@code atomicLoadInt(a, ACQUIRE, s)}; {@code loadIntAcquire(a)} (system scope)</td>
 *     <td>ACQUIRE, CONSUME (C++ acquire is weaker: no store-buffering ban)</td></tr>
 * <tr><td>RELEASE</td><td>{@code screlease}</td><td>{@code store(v, RELEASE)} = {@code storeScrelease(v)}</td>
 *     <td>{@code atomicStoreInt(a, v, RELEASE, s)}; {@code storeIntRelease(a, v)}</td><td>RELEASE</td></tr>
 * <tr><td>ACQ_REL</td><td>{@code scacq_screl}</td><td>{@code exchangeScacqScrel}, ...</td>
 *     <td>read-modify-writes</td><td>ACQ_REL</td></tr>
 * <tr><td>SEQ_CST</td><td>{@code scacq_screl} (HSA's sc orders already are)</td><td>as ACQ_REL</td>
 *     <td>any</td><td>SEQ_CST: the default of every C++AMP atomic without an order</td></tr>
 * </table>
 * Clock ids of {@code clock_gettime} are not orders: see the services' {@code Clocks}.
 */
public enum MemoryOrder {
    /** Atomic and coherent, no ordering: opaque access. */
    RELAXED,
    /** HSA scacquire: a load that later accesses cannot move above; volatile load. */
    ACQUIRE,
    /** HSA screlease: a store that earlier accesses cannot move below; volatile store. */
    RELEASE,
    /** Both scacquire and screlease; for read-modify-writes and fences. */
    ACQ_REL,
    /** Sequentially consistent. */
    SEQ_CST;

    /** HSA's spelling of this order, as in {@code hsa_signal_load_scacquire}: the reference name. */
    public String hsaName() {
        return switch (this) {
            case RELAXED -> "relaxed";
            case ACQUIRE -> "scacquire";
            case RELEASE -> "screlease";
            case ACQ_REL, SEQ_CST -> "scacq_screl";
        };
    }

    /** True when this order may be used on an atomic load. */
    public boolean validForLoad() {
        return this != RELEASE && this != ACQ_REL;
    }

    /** True when this order may be used on an atomic store. */
    public boolean validForStore() {
        return this != ACQUIRE && this != ACQ_REL;
    }
}
