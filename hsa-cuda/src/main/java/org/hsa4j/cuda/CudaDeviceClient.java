package org.hsa4j.cuda;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import org.hsa4j.cuda.CudaServerProtocol.Frame;
import org.hsa4j.cuda.driver.CuResult;
import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.memory.SvmShare;
import org.hsa4j.memory.SvmRegistrar;
import org.hsa4j.runtime.HsaRuntime;
import org.hsa4j.status.HsaException;
import org.hsa4j.status.HsaStatus;

/**
 * The parent's end of one {@link CudaDeviceServer}: starts the child JVM, sends requests and routes
 * the replies, and is an {@link SvmRegistrar} that has the server register every SVM chunk.
 *
 * <p><b>Waits.</b> A request ({@link #call}) waits at most {@link #CALL_NANOS}; one that times out
 * kills the server (a server that does not answer cannot be trusted with the device) and fails with
 * ERROR. A launch ({@link #launch}) does not wait: its callback runs on the reader thread when the
 * server reports DONE or ERROR. When the server dies (a kernel fault, a crash, a kill) the reader
 * sees the end of its stdout: every request and launch still pending fails with the exit status,
 * and {@code onDeath} runs once, so the agent starts another server for its next queues.
 *
 * <p><b>Lifetime.</b> {@link #close} asks the server to shut down, waits {@link #CLOSE_NANOS}, then
 * destroys it. A server whose parent dies sees the end of its stdin and exits.
 */
final class CudaDeviceClient implements SvmRegistrar, AutoCloseable {
    /** The longest a request waits for its reply. */
    static final long CALL_NANOS = TimeUnit.SECONDS.toNanos(60);
    /** The longest {@link #close} waits for the server to exit before destroying it. */
    static final long CLOSE_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long START_NANOS = TimeUnit.SECONDS.toNanos(120);
    /** How the reader looks for a due reply before it blocks: spin, then yield for up to 200 us; never a park. */
    private static final IdleStrategy WAIT = IdleStrategy.forThisMachine(2, true).withBusyNanos(200_000);

    private final Process process;
    private final DataOutputStream out;
    private final Thread reader;
    private final long number;
    private final String name;
    private final Map<Long, Consumer<Frame>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final CompletableFuture<Frame> ready = new CompletableFuture<>();
    private final CudaServerKernels kernels;
    private final Consumer<CudaDeviceClient> onDeath;
    /** Why the server is gone, or null while it serves. */
    private volatile HsaException dead;

    private CudaDeviceClient(Process process, long number, String name, Consumer<CudaDeviceClient> onDeath) {
        this.process = process;
        this.number = number;
        this.name = name;
        this.onDeath = onDeath;
        this.out = new DataOutputStream(new BufferedOutputStream(process.getOutputStream()));
        DataInputStream in = new DataInputStream(new BufferedInputStream(process.getInputStream()));
        this.kernels = CudaServerKernels.forServer(number, new CudaServerKernels.Loader() {
            @Override
            public long load(String codeName, byte[] image) {
                return call(new Frame(CudaServerProtocol.LOAD, 0, new long[0], codeName, image)).at(0);
            }

            @Override
            public long function(long module, String symbol) {
                return call(new Frame(CudaServerProtocol.FUNCTION, 0, new long[] {module}, symbol, null)).at(0);
            }
        });
        this.reader = Thread.ofPlatform().daemon().name("hsa4j-server" + number + "-reader").unstarted(() -> read(in));
    }

    /**
     * Starts server number {@code number} for device {@code ordinal} on {@code share}, and waits
     * (bounded) until it has mapped the SVM and made its context.
     *
     * @throws HsaException FATAL when it cannot start, with its reason
     */
    static CudaDeviceClient start(SvmShare share, int ordinal, long number, String agentName,
                                  Consumer<CudaDeviceClient> onDeath) {
        List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        // a small heap and one GC thread: the server holds no data, and every mapping it makes may
        // be one the parent's next SVM chunk needs free
        cmd.addAll(List.of("--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-XX:+UseSerialGC", "-cp", classPath(),
                CudaDeviceServer.class.getName(), Long.toString(share.pid()), Integer.toString(share.fd()),
                Long.toHexString(share.address()), Long.toString(share.bytes()), Integer.toString(ordinal)));
        Process p;
        try {
            p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new HsaException(HsaStatus.FATAL, "cannot start a device server for " + agentName + ": " + e, e);
        }
        CudaDeviceClient c = new CudaDeviceClient(p, number, agentName + " server " + number + " (pid " + p.pid() + ")",
                onDeath);
        c.reader.start();
        Frame hello;
        try {
            hello = c.ready.get(START_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            p.destroyForcibly();
            throw new HsaException(HsaStatus.FATAL, c.name + " did not start in " + TimeUnit.NANOSECONDS.toSeconds(START_NANOS)
                    + " s");
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new HsaException(HsaStatus.FATAL, "interrupted while " + c.name + " started", e);
        } catch (ExecutionException e) {
            p.destroyForcibly();
            throw new HsaException(HsaStatus.FATAL, c.name + " could not start: " + e.getCause().getMessage(), e.getCause());
        }
        if (hello.op() != CudaServerProtocol.OK) {
            p.destroyForcibly();
            throw new HsaException(HsaStatus.FATAL, hello.text());
        }
        return c;
    }

    /** hsa-cuda's and hsa-runtime's code sources, then the JVM's class path (a test launcher's may hold only itself). */
    private static String classPath() {
        StringBuilder cp = new StringBuilder();
        for (Class<?> c : List.of(CudaDeviceServer.class, HsaRuntime.class)) {
            try {
                cp.append(Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI())).append(File.pathSeparatorChar);
            } catch (Exception e) {
                // no code source to name: the JVM's class path below must hold it
            }
        }
        return cp.append(System.getProperty("java.class.path")).toString();
    }

    /** The server's number (1 for the first this agent started). */
    long number() {
        return number;
    }

    /** The server's kernel table: the agent's kept code objects, loaded there on first use. */
    CudaServerKernels kernels() {
        return kernels;
    }

    /** Why the server is gone, or null while it serves. */
    HsaException dead() {
        return dead;
    }

    /** The server's process id. */
    long pid() {
        return process.pid();
    }

    /** The server's process (tests end its channel as a dying parent would). */
    Process process() {
        return process;
    }

    @Override
    public String toString() {
        return name;
    }

    /**
     * Sends {@code request} (its id is replaced) and waits at most {@link #CALL_NANOS} for the reply.
     *
     * @throws HsaException the CUDA error's status when the server reports one; FATAL when it is gone,
     *                      ERROR when it did not answer in time (it is then killed)
     */
    Frame call(Frame request) {
        CompletableFuture<Frame> reply = new CompletableFuture<>();
        long id = send(request, reply::complete);
        Frame r;
        try {
            r = reply.get(CALL_NANOS, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            pending.remove(id);
            process.destroyForcibly();
            throw new HsaException(HsaStatus.ERROR, name + " did not answer request " + request.op() + " in "
                    + TimeUnit.NANOSECONDS.toSeconds(CALL_NANOS) + " s; it was killed");
        } catch (InterruptedException e) {
            pending.remove(id);
            Thread.currentThread().interrupt();
            throw new HsaException(HsaStatus.ERROR, "interrupted while waiting for " + name, e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());   // never completed exceptionally
        }
        if (r.op() == CudaServerProtocol.ERROR) {
            throw error(r);
        }
        return r;
    }

    /**
     * Launches on the server without waiting: {@code launch} holds the LAUNCH longs (notify set here),
     * {@code kernarg} the kernarg bytes; {@code done} gets null when the kernel finished, else the error.
     */
    void launch(long[] launch, byte[] kernarg, Consumer<HsaException> done) {
        long[] l = launch.clone();
        l[9] = 1;
        long sent = System.nanoTime();
        send(new Frame(CudaServerProtocol.LAUNCH, 0, l, "", kernarg), r -> {
            if (r.op() == CudaServerProtocol.DONE) {
                stages.add(sent, r, readAt);
                done.accept(null);
            } else {
                done.accept(error(r));
            }
        });
    }

    /**
     * Where a launch's round trip goes, summed over the launches reported DONE: parent sent -> server
     * read, read -> launched (launch and event record returned), launched -> event seen done, done
     * -> reply written, written -> parent read. Written on the reader thread only.
     */
    static final class Stages {
        private final long[] sums = new long[5];
        private volatile long count;

        void add(long sent, Frame done, long read) {
            long[] at = {sent, done.at(1), done.at(2), done.at(3), done.at(4), read};
            for (int i = 0; i < 5; i++) {
                sums[i] += at[i + 1] - at[i];
            }
            count++;
        }

        void reset() {
            java.util.Arrays.fill(sums, 0);
            count = 0;
        }

        @Override
        public String toString() {
            long n = Math.max(1, count);
            return String.format("to server %.1f us, launch %.1f us, kernel+poll %.1f us, report %.1f us, back %.1f us "
                    + "(means of %d)", sums[0] / 1e3 / n, sums[1] / 1e3 / n, sums[2] / 1e3 / n, sums[3] / 1e3 / n,
                    sums[4] / 1e3 / n, count);
        }
    }

    private final Stages stages = new Stages();
    /** When the reader read the frame it is routing (the reader thread's). */
    private long readAt;

    /** The launches' stage times (tests print them). */
    Stages stages() {
        return stages;
    }

    /** The exception an ERROR reply stands for: the CUDA error's status (MEMORY_FAULT for a kernel fault). */
    HsaException error(Frame r) {
        long rc = r.at(0);
        if (rc == CudaServerProtocol.NOT_CUDA) {
            HsaException gone = dead;
            return new HsaException(gone != null ? gone.status() : HsaStatus.ERROR, r.text() + " (" + name + ")");
        }
        return CuResult.exception((int) rc, r.text(), name);
    }

    private long send(Frame request, Consumer<Frame> onReply) {
        long id = ids.incrementAndGet();
        pending.put(id, onReply);
        HsaException gone = dead;
        if (gone != null) {
            pending.remove(id);
            onReply.accept(gone(id, gone));
            return id;
        }
        try {
            synchronized (out) {
                CudaServerProtocol.write(out, new Frame(request.op(), id, request.longs(), request.text(), request.data()));
            }
        } catch (IOException e) {
            // the server is gone: the reader fails everything pending, this request with it
            process.destroyForcibly();
        }
        if (dead != null) {
            Consumer<Frame> mine = pending.remove(id);
            if (mine != null) {
                mine.accept(gone(id, dead));
            }
        }
        return id;
    }

    private static Frame gone(long id, HsaException why) {
        return new Frame(CudaServerProtocol.ERROR, id, new long[] {CudaServerProtocol.NOT_CUDA}, why.getMessage(), null);
    }

    private void read(DataInputStream in) {
        String why = "its control channel ended";
        try {
            Frame f;
            while (true) {
                if (!pending.isEmpty()) {
                    CudaServerProtocol.spinUntilReadable(in, WAIT);   // a reply is due: catch it without a wake-up
                }
                if ((f = CudaServerProtocol.read(in)) == null) {
                    break;
                }
                readAt = System.nanoTime();
                if (f.id() == 0) {
                    ready.complete(f);
                    continue;
                }
                if (f.op() == CudaServerProtocol.ERROR && f.at(0) != CudaServerProtocol.NOT_CUDA
                        && CuResult.poisonsContext((int) f.at(0)) && dead == null) {
                    // a sticky error: the server is as good as gone (it exits after reporting), so no
                    // one may be handed it from now on, before anyone hears of the fault
                    dead = new HsaException(CuResult.toStatus((int) f.at(0)), name + " faulted (" + f.text()
                            + ") and exits");
                }
                Consumer<Frame> c = pending.remove(f.id());
                if (c != null) {
                    c.accept(f);
                }
            }
        } catch (IOException | RuntimeException e) {
            why = "its control channel failed: " + e;
            process.destroyForcibly();
        }
        int status;
        try {
            status = process.waitFor(CLOSE_NANOS, TimeUnit.NANOSECONDS) ? process.exitValue() : -1;
        } catch (InterruptedException e) {
            status = -1;
        }
        dead = new HsaException(status == CudaDeviceServer.EXIT_FAULTED ? HsaStatus.MEMORY_FAULT : HsaStatus.FATAL,
                name + " exited (status " + status + (status == CudaDeviceServer.EXIT_FAULTED ? ": a kernel fault" : "")
                        + "); " + why);
        ready.complete(gone(0, dead));
        for (Long id : List.copyOf(pending.keySet())) {
            Consumer<Frame> c = pending.remove(id);
            if (c != null) {
                c.accept(gone(id, dead));
            }
        }
        onDeath.accept(this);
    }

    // ---- SvmRegistrar: the server registers every chunk the parent maps ---------------------------

    @Override
    public void mapped(long address, long bytes) {
        try {
            call(new Frame(CudaServerProtocol.MAP, 0, address, bytes));
        } catch (HsaException e) {
            if (dead == null) {
                throw e;   // a live server refused the chunk: the allocation that needed it fails
            }
            // a dead server registers nothing: the chunk serves the host and CPU agents on
        }
    }

    @Override
    public void unmapping(long address, long bytes) {
        if (dead == null) {
            try {
                call(new Frame(CudaServerProtocol.UNMAP, 0, address, bytes));
            } catch (HsaException ignored) {
                // the server died meanwhile: its registrations went with it
            }
        }
    }

    /** Asks the server to shut down, waits {@link #CLOSE_NANOS}, then destroys it; joins the reader. */
    @Override
    public void close() {
        if (dead == null) {
            try {
                send(new Frame(CudaServerProtocol.SHUTDOWN, 0), r -> { });   // a faulted server exits by itself
            } catch (RuntimeException ignored) {
                // gone already
            }
        }
        try {
            if (!process.waitFor(CLOSE_NANOS, TimeUnit.NANOSECONDS)) {
                process.destroyForcibly();
                process.waitFor(CLOSE_NANOS, TimeUnit.NANOSECONDS);
            }
            reader.join(TimeUnit.NANOSECONDS.toMillis(CLOSE_NANOS));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
