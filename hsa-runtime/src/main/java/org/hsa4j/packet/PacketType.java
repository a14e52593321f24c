package org.hsa4j.packet;

/** AQL packet types ({@code hsa_packet_type_t}), with their header codes. */
public enum PacketType {
    /** Vendor-specific packet; hsa4j defines none and rejects it. */
    VENDOR_SPECIFIC(0),
    /** Not yet published, or already consumed: a packet processor never processes it. */
    INVALID(1),
    /** Launches a kernel on a kernel agent. */
    KERNEL_DISPATCH(2),
    /** Completes once every dependency signal has been observed at 0. */
    BARRIER_AND(3),
    /** Runs a registered handler on an agent that supports agent dispatch (the CPU agent). */
    AGENT_DISPATCH(4),
    /** Completes once any dependency signal is observed at 0. */
    BARRIER_OR(5);

    private static final PacketType[] BY_CODE = values();

    private final int code;

    PacketType(int code) {
        this.code = code;
    }

    /** The value of the header's type field. */
    public int code() {
        return code;
    }

    /** The type with header code {@code code}, or null for an unknown code. */
    public static PacketType fromCode(int code) {
        return code >= 0 && code < BY_CODE.length ? BY_CODE[code] : null;
    }
}
