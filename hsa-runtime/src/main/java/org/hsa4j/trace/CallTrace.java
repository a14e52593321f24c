package org.hsa4j.trace;

/** The trace of one service call being served: {@link #NONE} when nothing listens, a live one otherwise. */
public sealed class CallTrace permits LiveCall {
    /** The trace of a call nobody listens to. */
    public static final CallTrace NONE = new CallTrace();

    CallTrace() {
    }

    /** The service {@code service} returned from {@code opcode} (namespace in the high 16 bits) with {@code status}. */
    public void ended(String service, int opcode, String status) {
    }
}
