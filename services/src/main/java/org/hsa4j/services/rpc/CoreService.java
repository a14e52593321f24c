package org.hsa4j.services.rpc;

/**
 * The RPC layer's own functions in {@link Opcodes#CORE_NAMESPACE}: {@link Opcodes#NOP} (the
 * round-trip probe), {@link Opcodes#ECHO} (arguments back as results) and {@link Opcodes#ECHO_N}
 * (a send_n payload back with recv_n).
 */
public final class CoreService {
    /** Owner name of the core namespace. */
    public static final String OWNER = "hsa4j-core";

    /** NOP: nothing, no results. */
    static final RpcService NOP = call -> { };
    /** ECHO: each lane's eight arguments back as its results. */
    static final RpcService ECHO = call -> {
        for (long m = call.laneMask(); m != 0; m &= m - 1) {
            int lane = Long.numberOfTrailingZeros(m);
            for (int i = 0; i < RpcLayout.LANE_WORDS; i++) {
                call.result(lane, i, call.arg(lane, i));
            }
        }
    };

    private CoreService() {
    }

    /**
     * True when {@code entry} is NOP or ECHO as registered here: the server may answer such a port
     * call in place (OK, lanes untouched: NOP returns nothing, ECHO's results are the arguments
     * already in the lanes) without running the service. Any other service, one registered over
     * these opcodes included, runs as usual.
     */
    static boolean answersInPlace(OpcodeRegistry.Entry entry) {
        return entry.mode() == ServiceMode.INLINE && (entry.service() == NOP || entry.service() == ECHO);
    }

    /** Claims the core namespace in {@code registry} and registers the core functions. */
    public static void register(OpcodeRegistry registry) {
        registry.claimNamespace(Opcodes.CORE_NAMESPACE, OWNER);
        registry.register(OWNER, Opcodes.NOP, ServiceMode.INLINE, NOP);
        registry.register(OWNER, Opcodes.ECHO, ServiceMode.INLINE, ECHO);
        registry.register(OWNER, Opcodes.ECHO_N, ServiceMode.HANDLER, call -> call.sendN(call.recvN()));
    }
}
