package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.memory.SvmRegistrar;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * Makes the runtime's real-address SVM reachable by one CUDA agent at the same addresses: each
 * chunk the arena maps is pinned and mapped with {@code cuMemHostRegister_v2(PORTABLE|DEVICEMAP)}
 * before any allocation of it is handed out, and unregistered before it is unmapped.
 *
 * <p>Same address on both sides is checked, not assumed: {@code cuMemHostGetDevicePointer_v2} must
 * give back the host address (it does where CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM is 1, as on the
 * H100); otherwise the chunk is refused with INCOMPATIBLE_ARGUMENTS and the allocation that needed
 * it fails, instead of a kernel later following a pointer the device cannot use.
 *
 * <p>A context reset (recovery after a fault) drops every registration; {@link CudaAgent} then
 * removes and re-adds this registrar, which registers every chunk again.
 */
final class CudaSvmRegistrar implements SvmRegistrar {
    static final int MEMHOSTREGISTER_PORTABLE = 0x01;
    static final int MEMHOSTREGISTER_DEVICEMAP = 0x02;

    private final CudaContext context;

    CudaSvmRegistrar(CudaContext context) {
        this.context = context;
    }

    @Override
    public void mapped(long address, long bytes) {
        CudaDriver d = context.driver();
        context.enter();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment host = MemorySegment.ofAddress(address);
            d.check(d.cuMemHostRegister(host, bytes, MEMHOSTREGISTER_PORTABLE | MEMHOSTREGISTER_DEVICEMAP),
                    String.format("cuMemHostRegister_v2(0x%x, %d)", address, bytes));
            MemorySegment out = a.allocate(JAVA_LONG);
            int rc = d.cuMemHostGetDevicePointer(out, host, 0);
            long device = out.get(JAVA_LONG, 0);
            if (rc != 0 || device != address) {
                d.cuMemHostUnregister(host);
                d.check(rc, "cuMemHostGetDevicePointer_v2");
                throw new HsaException(HsaStatus.INCOMPATIBLE_ARGUMENTS, String.format("the device maps SVM chunk "
                        + "0x%x at 0x%x: real-address SVM needs the same address on host and device", address, device));
            }
        } finally {
            context.exit();
        }
    }

    @Override
    public void unmapping(long address, long bytes) {
        try {
            context.enter();
        } catch (RuntimeException closed) {
            return;   // the context is gone, and its registrations with it
        }
        try {
            // an error here (the context was reset, or died with a sticky fault) means the
            // registration is gone already
            context.driver().cuMemHostUnregister(MemorySegment.ofAddress(address));
        } finally {
            context.exit();
        }
    }
}
