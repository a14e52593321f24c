package org.hsa4j.testsupport;

import java.util.concurrent.atomic.AtomicLong;

import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.signal.Signal;

/**
 * Signals for jcstress states, created once and recycled round-robin.
 *
 * <p>States are created by the million and dropped without a destructor, so they cannot create
 * signals of their own. A ring of {@code SvmSlots.SLOTS * perState} signals is made when the test
 * class loads; {@link #next(long)} hands the next one out with a fresh value (a silent store: no
 * one waits on a signal being recycled). As with {@link SvmSlots}, a signal comes round again only
 * after far more states than jcstress keeps alive.
 */
public final class SignalRing {
    private final Signal[] signals;
    private final AtomicLong next = new AtomicLong();

    private SignalRing(Signal[] signals) {
        this.signals = signals;
    }

    /** A ring for states that take {@code perState} signals each. */
    public static SignalRing of(HsaRuntime rt, int perState) {
        Signal[] signals = new Signal[SvmSlots.SLOTS * perState];
        for (int i = 0; i < signals.length; i++) {
            signals[i] = rt.createSignal(0);
        }
        return new SignalRing(signals);
    }

    /** The next signal of the ring, set to {@code value}. */
    public Signal next(long value) {
        Signal s = signals[(int) (next.getAndIncrement() % signals.length)];
        s.silentStoreScrelease(value);
        return s;
    }
}
