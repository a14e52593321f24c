package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

import org.hsa4j.cuda.driver.CudaDriver;

/**
 * The child side of {@link CudaSharedArenaGpuTest}: maps the parent's memfd at the parent's address,
 * checks the word the parent wrote, answers on the host, then makes a CUDA context of its own,
 * registers the mapping and has a kernel mark 64 words at offset 4096. Exit 0 when all of it worked;
 * otherwise it prints why and exits 1.
 *
 * <p>Arguments: parent pid, parent's memfd descriptor, address (hex), bytes, the word expected at 0.
 */
public final class SharedArenaChild {
    static final long MARKS = 4096;

    private SharedArenaChild() {
    }

    public static void main(String[] args) {
        try {
            long pid = Long.parseLong(args[0]);
            int parentFd = Integer.parseInt(args[1]);
            long address = Long.parseUnsignedLong(args[2], 16);
            long bytes = Long.parseLong(args[3]);
            int expected = Integer.parseInt(args[4]);
            // map first, before CUDA reserves address space of its own
            int fd = SharedMemoryFile.openOf(pid, parentFd);
            SharedMemoryFile.mapAt(address, fd, bytes, SharedMemoryFile.PROT_READ_WRITE);
            MemorySegment s = MemorySegment.ofAddress(address).reinterpret(bytes);
            int seen = s.get(JAVA_INT, 0);
            if (seen != expected) {
                System.out.println("child read " + seen + " at 0x" + Long.toHexString(address) + ", expected " + expected);
                System.exit(1);
            }
            s.set(JAVA_INT, 8, expected + 1);
            System.out.println("child mapped 0x" + Long.toHexString(address) + " and read the parent's word");

            CudaPlatform platform = CudaPlatform.discover();
            if (!platform.available()) {
                System.out.println("child has no CUDA: " + platform.reason());
                System.exit(1);
            }
            CudaDriver d = platform.driver();
            CudaContext context = new CudaContext(d, 0);
            new CudaSvmRegistrar(context).mapped(address, bytes);
            context.enter();
            try (Arena a = Arena.ofConfined()) {
                byte[] ptx = CudaCodeObject.fromResource("org/hsa4j/cuda/kernels/hsa4j_kernels.ptx").imageUnsafe();
                MemorySegment image = a.allocate(ptx.length + 1L, 64);
                image.copyFrom(MemorySegment.ofArray(ptx));
                MemorySegment out = a.allocate(ADDRESS);
                d.check(d.cuModuleLoadDataEx(out, image, 0, MemorySegment.NULL, MemorySegment.NULL), "cuModuleLoadDataEx");
                MemorySegment module = out.get(ADDRESS, 0);
                d.check(d.cuModuleGetFunction(out, module, a.allocateFrom("hsa4j_mark")), "cuModuleGetFunction");
                MemorySegment f = out.get(ADDRESS, 0);
                MemorySegment ptr = a.allocate(JAVA_LONG);
                ptr.set(JAVA_LONG, 0, address + MARKS);
                MemorySegment n = a.allocate(JAVA_INT);
                n.set(JAVA_INT, 0, 64);
                MemorySegment params = a.allocate(ADDRESS, 2);
                params.setAtIndex(ADDRESS, 0, ptr);
                params.setAtIndex(ADDRESS, 1, n);
                d.check(d.cuLaunchKernel(f, 1, 1, 1, 64, 1, 1, 0, MemorySegment.NULL, params, MemorySegment.NULL),
                        "cuLaunchKernel");
                d.check(d.cuCtxSynchronize(), "cuCtxSynchronize");
            } finally {
                context.exit();
            }
            System.out.println("child's kernel ran");
            System.exit(0);
        } catch (Throwable t) {
            System.out.println("child failed: " + t);
            System.exit(1);
        }
    }
}
