package org.hsa4j.services.rpc;

/**
 * The RPC layer's own functions in {@link Opcodes#CORE_NAMESPACE}: {@link Opcodes#NOP} (the
 * round-trip probe), {@link Opcodes#ECHO} (arguments back as results) and {@link Opcodes#ECHO_N}
 * (a send_n payload back with recv_n).
 */
public final class CoreService {
    /** Owner name of the core namespace. */
    public static final String OWNER = "hsa4j-core";

    private CoreService() {
    }

    /** Claims the core namespace in {@code registry} and registers the core functions. */
    public static void register(OpcodeRegistry registry) {
        registry.claimNamespace(Opcodes.CORE_NAMESPACE, OWNER);
        registry.register(OWNER, Opcodes.NOP, ServiceMode.INLINE, call -> { });
        registry.register(OWNER, Opcodes.ECHO, ServiceMode.INLINE, call -> {
            for (long m = call.laneMask(); m != 0; m &= m - 1) {
                int lane = Long.numberOfTrailingZeros(m);
                for (int i = 0; i < RpcLayout.LANE_WORDS; i++) {
                    call.result(lane, i, call.arg(lane, i));
                }
            }
        });
        registry.register(OWNER, Opcodes.ECHO_N, ServiceMode.HANDLER, call -> call.sendN(call.recvN()));
    }
}
