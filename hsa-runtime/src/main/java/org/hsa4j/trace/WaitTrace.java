package org.hsa4j.trace;

/** The trace of one blocking signal wait: {@link #NONE} when nothing listens, a live one otherwise. */
public sealed class WaitTrace permits LiveWait {
    /** The trace of a wait nobody listens to. */
    public static final WaitTrace NONE = new WaitTrace();

    WaitTrace() {
    }

    /** The wait ended (satisfied, timed out, failed or interrupted); {@code parked} when it parked at least once. */
    public void ended(boolean parked) {
    }
}
