package org.hsa4j.trace;

/**
 * The trace of one launched packet, which its compute units report to: {@link #NONE} when nothing
 * listens (empty methods), a live one otherwise. Unit {@code u} calls {@link #partBegin} and
 * {@link #partEnd} around each part it runs, and the unit that completes the packet calls
 * {@link #completed} once, after every part ended.
 */
public sealed class DispatchTrace permits LiveDispatch {
    /** The trace of a packet nobody listens to. */
    public static final DispatchTrace NONE = new DispatchTrace();

    DispatchTrace() {
    }

    /** Compute unit {@code unit} starts part {@code part} (a workgroup's flat id). */
    public void partBegin(int unit, long part) {
    }

    /** Compute unit {@code unit} ended the part it began. */
    public void partEnd(int unit) {
    }

    /** The packet completed (its completion signal was signalled or failed); {@code failed} when it failed. */
    public void completed(boolean failed) {
    }
}
