package org.hsa4j.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

import org.hsa4j.cuda.CudaServerProtocol.Frame;
import org.hsa4j.cuda.driver.CuResult;
import org.hsa4j.cuda.driver.CudaDriver;
import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;

/**
 * The device server: a child JVM that runs a {@link CudaAgent}'s kernels in a CUDA context of its
 * own, on the parent's SVM mapped at the parent's addresses (issue 18 part 5: a kernel fault
 * poisons a process's CUDA for good, so the agent goes on in a fresh process).
 *
 * <p><b>How.</b> {@code main(pid, fd, address, bytes, ordinal)} opens the parent's SVM memfd through
 * {@code /proc/<pid>/fd/<fd>} and maps all of it, with no access, at exactly {@code address}
 * ({@code MAP_FIXED_NOREPLACE}: it fails, naming the address, where this JVM already has something
 * there), before CUDA reserves address space of its own. Then it makes its context and answers
 * {@link CudaServerProtocol} frames on stdin, one at a time: MAP makes a chunk read-write and
 * registers it ({@link CudaSvmRegistrar}, same address on the device checked), LOAD/FUNCTION load
 * the parent's kept code objects, LAUNCH launches into a stream of its own with the kernarg bytes
 * the parent sent and records an event; a completer thread polls the events in launch order and
 * reports DONE or ERROR. Packets, signals and queues stay in the parent: the server only runs CUDA
 * calls, so it needs none of the runtime's objects.
 *
 * <p><b>Ends.</b> End of stdin (the parent closed it, or died) or SHUTDOWN: exit 0. A sticky CUDA
 * error (a kernel fault): every pending launch gets ERROR with that code, then exit
 * {@link #EXIT_FAULTED}; the parent starts a new server for its next queues. Replies go to the
 * real stdout; {@code System.out} is pointed at stderr so nothing else can corrupt the channel.
 */
public final class CudaDeviceServer {
    /** Exit status after a sticky CUDA error. */
    static final int EXIT_FAULTED = 3;
    /** Exit status when the server could not start (mapping, context): the reason went out as an ERROR for id 0. */
    static final int EXIT_FAILED_START = 2;
    private static final int CU_STREAM_NON_BLOCKING = 0x1;
    private static final int CU_EVENT_DISABLE_TIMING = 0x2;
    private static final long IDLE_PARK_NANOS = 20_000;
    /**
     * How the server waits for a kernel and for the parent's next request: spin, then yield for up to
     * 200 us (a launch round trip is about 10 us, so a report is usually seen before any park), then
     * parks of at most {@link #IDLE_PARK_NANOS} (which sleep 50 us or more with the kernel's timer slack).
     */
    private static final IdleStrategy WAIT = IdleStrategy.forThisMachine(2, true).withBusyNanos(200_000);

    /** A launch whose event is polled; its times (System.nanoTime, comparable across processes on Linux) go back with DONE. */
    private record Pending(long id, long stream, MemorySegment event, long read, long launched) {
    }

    private final DataOutputStream out;
    private final CudaContext context;
    private final CudaDriver d;
    private final CudaSvmRegistrar registrar;
    private final ConcurrentLinkedQueue<Pending> pending = new ConcurrentLinkedQueue<>();
    private final Thread completer;
    /** When the request being handled was read (the main thread's). */
    private long readAt;
    /** Recorded events the completer saw done, for the next launches (no create and destroy per launch). */
    private final ConcurrentLinkedQueue<MemorySegment> freeEvents = new ConcurrentLinkedQueue<>();
    /** The main thread's launch buffers, made once: the driver's out word, the extra array and its size word. */
    private final Arena launchArena = Arena.ofAuto();
    private final MemorySegment launchOut = launchArena.allocate(ADDRESS);
    private final MemorySegment launchExtra = launchArena.allocate(ADDRESS, 5);
    private final MemorySegment launchSize = launchArena.allocate(JAVA_LONG);
    /** The main thread's kernarg buffer, grown to the largest launch's segment. */
    private MemorySegment launchKernarg = MemorySegment.NULL;
    /** Streams with an event not done yet in the completer's current pass (the completer's). */
    private final java.util.Set<Long> waiting = new java.util.HashSet<>();

    private CudaDeviceServer(DataOutputStream out, CudaContext context) {
        this.out = out;
        this.context = context;
        this.d = context.driver();
        this.registrar = new CudaSvmRegistrar(context);
        this.completer = Thread.ofPlatform().daemon().name("hsa4j-server-completer").unstarted(this::complete);
    }

    /** Arguments: parent pid, the parent's SVM memfd, its mapping address (hex), bytes, device ordinal. */
    public static void main(String[] args) {
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(new FileOutputStream(FileDescriptor.out)));
        System.setOut(System.err);
        CudaDeviceServer server;
        try {
            long pid = Long.parseLong(args[0]);
            int parentFd = Integer.parseInt(args[1]);
            long address = Long.parseUnsignedLong(args[2], 16);
            long bytes = Long.parseLong(args[3]);
            int ordinal = Integer.parseInt(args[4]);
            int fd = SharedMemoryFile.openOf(pid, parentFd);
            SharedMemoryFile.mapAt(address, fd, bytes, SharedMemoryFile.PROT_NONE);
            // the driver alone (no device survey, no NVRTC, whatever HSA4J_CUDA says): the parent chose the device
            CudaDriver.Load load = CudaDriver.load(CudaDriver.LIBRARY);
            if (!load.available()) {
                throw new IllegalStateException("no CUDA in the device server: " + load.reason());
            }
            CudaDriver driver = load.driver();
            driver.check(driver.cuInit(0), "cuInit");
            server = new CudaDeviceServer(out, new CudaContext(driver, ordinal));
        } catch (Throwable t) {
            try {
                CudaServerProtocol.write(out, new Frame(CudaServerProtocol.ERROR, 0,
                        new long[] {CudaServerProtocol.NOT_CUDA}, "the device server could not start: " + t, null));
            } catch (IOException ignored) {
                // the parent is gone
            }
            System.exit(EXIT_FAILED_START);
            return;
        }
        System.exit(server.serve(new DataInputStream(new BufferedInputStream(new FileInputStream(FileDescriptor.in)))));
    }

    private int serve(DataInputStream in) {
        completer.start();
        reply(new Frame(CudaServerProtocol.OK, 0, ProcessHandle.current().pid()));
        try {
            Frame f;
            while (true) {
                CudaServerProtocol.spinUntilReadable(in, WAIT);
                if ((f = CudaServerProtocol.read(in)) == null) {
                    break;
                }
                if (f.op() == CudaServerProtocol.SHUTDOWN) {
                    reply(new Frame(CudaServerProtocol.OK, f.id()));
                    return 0;
                }
                readAt = System.nanoTime();
                handle(f);
            }
            return 0;   // the parent closed the channel, or died
        } catch (IOException e) {
            System.err.println("hsa4j device server: the control channel failed: " + e);
            return 0;
        }
    }

    private void handle(Frame f) {
        context.enter();
        try {
            MemorySegment out1 = launchOut;   // the main thread's: every request is handled on it
            switch (f.op()) {
                case CudaServerProtocol.LOAD -> {
                    try (Arena a = Arena.ofConfined()) {
                        MemorySegment image = a.allocate(f.data().length + 1L, 64);
                        image.copyFrom(MemorySegment.ofArray(f.data()));
                        int rc = d.cuModuleLoadDataEx(out1, image, 0, MemorySegment.NULL, MemorySegment.NULL);
                        answer(f, rc, "cuModuleLoadDataEx of " + f.text(), out1.get(ADDRESS, 0).address());
                    }
                }
                case CudaServerProtocol.FUNCTION -> {
                    try (Arena a = Arena.ofConfined()) {
                        int rc = d.cuModuleGetFunction(out1, MemorySegment.ofAddress(f.at(0)), a.allocateFrom(f.text()));
                        answer(f, rc, "cuModuleGetFunction of " + f.text(), out1.get(ADDRESS, 0).address());
                    }
                }
                case CudaServerProtocol.MAP -> {
                    SharedMemoryFile.protect(f.at(0), f.at(1), SharedMemoryFile.PROT_READ_WRITE);
                    registrar.mapped(f.at(0), f.at(1));
                    reply(new Frame(CudaServerProtocol.OK, f.id()));
                }
                case CudaServerProtocol.UNMAP -> {
                    registrar.unmapping(f.at(0), f.at(1));
                    SharedMemoryFile.protect(f.at(0), f.at(1), SharedMemoryFile.PROT_NONE);
                    reply(new Frame(CudaServerProtocol.OK, f.id()));
                }
                case CudaServerProtocol.STREAM -> {
                    int rc = d.cuStreamCreate(out1, CU_STREAM_NON_BLOCKING);
                    answer(f, rc, "cuStreamCreate", out1.get(ADDRESS, 0).address());
                }
                case CudaServerProtocol.DESTROY_STREAM -> {
                    int rc = d.cuStreamDestroy(MemorySegment.ofAddress(f.at(0)));
                    answer(f, rc, "cuStreamDestroy", 0);
                }
                case CudaServerProtocol.LAUNCH -> launch(f);
                default -> reply(new Frame(CudaServerProtocol.ERROR, f.id(), new long[] {CudaServerProtocol.NOT_CUDA},
                        "unknown request " + f.op(), null));
            }
        } catch (RuntimeException e) {
            // a refused registration (HsaException), a bad address: the request fails, the server goes on
            reply(new Frame(CudaServerProtocol.ERROR, f.id(), new long[] {CudaServerProtocol.NOT_CUDA}, e.toString(), null));
        } finally {
            context.exit();
        }
    }

    private void launch(Frame f) {
        long stream = f.at(0);
        MemorySegment extra = MemorySegment.NULL;
        int bytes = f.data().length;
        if (bytes > 0) {
            if (launchKernarg.byteSize() < bytes) {
                launchKernarg = launchArena.allocate(Math.max(bytes, 256), 16);
            }
            MemorySegment.copy(MemorySegment.ofArray(f.data()), 0, launchKernarg, 0, bytes);
            launchSize.set(JAVA_LONG, 0, bytes);
            extra = launchExtra;
            extra.setAtIndex(ADDRESS, 0, MemorySegment.ofAddress(1));   // CU_LAUNCH_PARAM_BUFFER_POINTER
            extra.setAtIndex(ADDRESS, 1, launchKernarg);
            extra.setAtIndex(ADDRESS, 2, MemorySegment.ofAddress(2));   // CU_LAUNCH_PARAM_BUFFER_SIZE
            extra.setAtIndex(ADDRESS, 3, launchSize);
            extra.setAtIndex(ADDRESS, 4, MemorySegment.NULL);          // CU_LAUNCH_PARAM_END
        }
        MemorySegment s = MemorySegment.ofAddress(stream);
        int rc = d.cuLaunchKernel(MemorySegment.ofAddress(f.at(1)), (int) f.at(2), (int) f.at(3), (int) f.at(4),
                (int) f.at(5), (int) f.at(6), (int) f.at(7), (int) f.at(8), s, MemorySegment.NULL, extra);
        if (rc == CuResult.SUCCESS && f.at(9) != 0) {
            MemorySegment event = freeEvents.poll();
            if (event == null) {
                rc = d.cuEventCreate(launchOut, CU_EVENT_DISABLE_TIMING);
                event = rc == CuResult.SUCCESS ? launchOut.get(ADDRESS, 0) : null;
            }
            if (event != null) {
                rc = d.cuEventRecord(event, s);
                if (rc == CuResult.SUCCESS) {
                    pending.add(new Pending(f.id(), stream, event, readAt, System.nanoTime()));
                    LockSupport.unpark(completer);
                    return;
                }
                d.cuEventDestroy(event);
            }
        }
        if (rc != CuResult.SUCCESS) {
            failed(f.id(), stream, rc, "cuLaunchKernel");
        }
    }

    /** Replies OK with {@code value}, or ERROR for {@code rc}. */
    private void answer(Frame f, int rc, String what, long value) {
        if (rc == CuResult.SUCCESS) {
            reply(new Frame(CudaServerProtocol.OK, f.id(), value));
        } else {
            failed(f.id(), 0, rc, what);
        }
    }

    /** Reports {@code rc} for request {@code id}; a sticky error fails everything pending and ends the server. */
    private void failed(long id, long stream, int rc, String what) {
        reply(new Frame(CudaServerProtocol.ERROR, id, new long[] {rc, stream}, what + ": " + d.errorName(rc), null));
        if (CuResult.poisonsContext(rc)) {
            List<Pending> rest = new ArrayList<>();
            Pending p;
            while ((p = pending.poll()) != null) {
                rest.add(p);
            }
            for (Pending q : rest) {
                reply(new Frame(CudaServerProtocol.ERROR, q.id(), new long[] {rc, q.stream()},
                        "the device server's context died with " + d.errorName(rc) + " (" + what + ")", null));
            }
            System.exit(EXIT_FAULTED);
        }
    }

    /** The completer: reports finished launches in launch order, idling through {@link #WAIT} while none finished. */
    private void complete() {
        Idler idler = null;
        while (true) {
            if (pending.isEmpty()) {
                // the next launch often follows at once: spin and yield first, park (until a launch
                // unparks it) only once the strategy would park
                if (idler == null) {
                    idler = WAIT.idler().blocker(this);
                }
                if (idler.parksNext()) {
                    idler = null;
                    LockSupport.park(this);
                } else {
                    idler.idle();
                }
                continue;
            }
            boolean progress = false;
            // a stream's events finish in its order: once one is not ready, its later ones are not
            // looked at in this pass (one may finish meanwhile and must not be reported first)
            waiting.clear();
            context.enter();
            try {
                for (Pending p : pending) {
                    if (waiting.contains(p.stream())) {
                        continue;
                    }
                    int rc = d.cuEventQuery(p.event());
                    if (rc == CuResult.NOT_READY) {
                        waiting.add(p.stream());
                        continue;
                    }
                    pending.remove(p);
                    if (rc == CuResult.SUCCESS) {
                        freeEvents.add(p.event());   // done: the next launch records it again
                        long done = System.nanoTime();
                        reply(new Frame(CudaServerProtocol.DONE, p.id(), p.stream(), p.read(), p.launched(), done,
                                System.nanoTime()));
                    } else {
                        d.cuEventDestroy(p.event());
                        failed(p.id(), p.stream(), rc, "the kernel (its event)");
                    }
                    progress = true;
                }
            } finally {
                context.exit();
            }
            if (progress) {
                idler = null;
            } else {
                if (idler == null) {
                    idler = WAIT.idler().blocker(this);
                }
                idler.idle(IDLE_PARK_NANOS);
            }
        }
    }

    private void reply(Frame f) {
        synchronized (out) {
            try {
                CudaServerProtocol.write(out, f);
            } catch (IOException e) {
                // the parent is gone: nothing to tell, and nobody to serve
                System.exit(0);
            }
        }
    }
}
