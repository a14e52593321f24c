package org.hsa4j.services.rpc;

/**
 * The opcode namespace. An opcode is 32 bits: the namespace in the high 16 bits, the function in
 * the low 16. Namespaces below {@link #USER_NAMESPACE_FIRST} belong to hsa4j's own services;
 * applications register their services in namespaces from {@link #USER_NAMESPACE_FIRST} up, so
 * two services never collide by accident.
 */
public final class Opcodes {
    /** Core functions of the RPC layer itself (no-op, echo). */
    public static final int CORE_NAMESPACE = 0x0000;
    /** The syscall service. */
    public static final int SYSCALL_NAMESPACE = 0x0001;
    /** Host malloc/free and device heap refills. */
    public static final int MEMORY_NAMESPACE = 0x0002;
    /** printf. */
    public static final int PRINTF_NAMESPACE = 0x0003;
    /** TCP networking. */
    public static final int NET_NAMESPACE = 0x0004;
    /** First namespace for applications' services. */
    public static final int USER_NAMESPACE_FIRST = 0x0100;
    /** Last namespace. */
    public static final int NAMESPACE_LAST = 0xFFFF;

    /** Core: does nothing and answers OK (the round-trip probe). */
    public static final int NOP = of(CORE_NAMESPACE, 0);
    /** Core: answers with the lanes' eight arguments unchanged. */
    public static final int ECHO = of(CORE_NAMESPACE, 1);
    /** Core: receives a send_n payload per lane and sends it back with recv_n. */
    public static final int ECHO_N = of(CORE_NAMESPACE, 2);

    private Opcodes() {
    }

    /** The opcode of {@code function} in {@code namespace}. */
    public static int of(int namespace, int function) {
        if (namespace < 0 || namespace > NAMESPACE_LAST || function < 0 || function > 0xFFFF) {
            throw new IllegalArgumentException("namespace and function must be 0..65535, were "
                    + namespace + " and " + function);
        }
        return namespace << 16 | function;
    }

    /** The namespace of {@code opcode}. */
    public static int namespace(int opcode) {
        return opcode >>> 16;
    }

    /** The function of {@code opcode} within its namespace. */
    public static int function(int opcode) {
        return opcode & 0xFFFF;
    }

    /** The opcode as namespace:function, for messages. */
    public static String toString(int opcode) {
        return String.format("%04x:%04x", namespace(opcode), function(opcode));
    }
}
