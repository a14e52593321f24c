package org.hsa4j.packet;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** Layout and flyweight of {@code hsa_agent_dispatch_packet_t}. */
public final class AgentDispatchPacket extends AqlPacket {
    /** u16 application-defined function type, published with the header. */
    public static final long TYPE = 2;
    /** u32 reserved. */
    public static final long RESERVED0 = 4;
    /** u64 address where the handler stores its result. */
    public static final long RETURN_ADDRESS = 8;
    /** u64 arg[0]; arg[i] is at ARG0 + 8 * i. */
    public static final long ARG0 = 16;
    /** Number of u64 arguments. */
    public static final int ARG_COUNT = 4;
    /** u64 reserved. */
    public static final long RESERVED2 = 48;

    /** Sets the return address. */
    public AgentDispatchPacket returnAddress(long address) {
        ring.set(ValueLayout.JAVA_LONG, base + RETURN_ADDRESS, address);
        return this;
    }

    /** Sets argument {@code i} (0-3). */
    public AgentDispatchPacket arg(int i, long value) {
        if (i < 0 || i >= ARG_COUNT) {
            throw new IndexOutOfBoundsException("agent dispatch argument " + i);
        }
        ring.set(ValueLayout.JAVA_LONG, base + ARG0 + 8L * i, value);
        return this;
    }

    @Override
    public AgentDispatchPacket completionSignal(long handle) {
        super.completionSignal(handle);
        return this;
    }

    @Override
    public AgentDispatchPacket wrap(MemorySegment ring, long base) {
        super.wrap(ring, base);
        return this;
    }

    /** Publishes header and function type with one 32-bit release store. */
    public void publish(short header, int type) {
        publishWord(header, (short) type);
    }
}
