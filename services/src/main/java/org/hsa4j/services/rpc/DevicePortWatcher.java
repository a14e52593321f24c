package org.hsa4j.services.rpc;

import java.util.concurrent.locks.LockSupport;

import org.hsa4j.idle.IdleStrategy;
import org.hsa4j.idle.Idler;

/**
 * Marks device ports pending for their clients: one host thread that reads the client flags of
 * the device ports ({@link RpcLayout#SET_DEVICE_FIRST}) and does, for each flip it sees, what a host
 * client does after its own flip in {@code RpcCall.post}.
 *
 * <h2>Why a host thread does it</h2>
 * A host client marks its port pending with an atomic OR on the pending bitmap, and server threads
 * take bits with an atomic AND. A CUDA GPU without host-native atomics (the H100 over PCIe reports
 * {@code CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 0}) cannot take part in that: its
 * read-modify-write and the host's on the same word are not atomic with each other, so a GPU OR
 * racing a host AND could lose either. So a device client writes only its own port's words, with
 * plain system-scope stores and loads (the turn protocol needs nothing else), and only read-modify-
 * writes its port's {@link RpcLayout#LOCK}, which no host thread touches (host clients lock only
 * ports below {@link RpcLayout#SET_DEVICE_FIRST}). Every word of the pending bitmap, the sleeper
 * count and the server claims is then read-modify-written by host threads alone.
 *
 * <h2>How</h2>
 * The thread looks at each device port's state, not at its flips: a port on the server's turn
 * ({@link RpcLayout#CLIENT_FLAG} differs from {@link RpcLayout#SERVER_FLAG}) whose server side
 * nobody claims needs a server thread, so the watcher marks it pending (when its bit is not set
 * already) and wakes a sleeping server thread. A claimed port needs nothing: its claim holder
 * serves its packets (a watcher server thread reads the flag itself, a call in progress waits for
 * its next packet) and re-checks the flags when it releases the claim, marking the port pending
 * itself. A flip counted by its parity could be missed (two flips between two looks); a state
 * cannot. A server thread parked mid-call for the port's next packet is unparked as soon as the
 * packet is there. After a client flag changed the watcher stays busy for {@link #SPIN_NANOS}
 * (through the runtime's {@link IdleStrategy}), then parks from {@link #MIN_PARK_NANOS} doubling to
 * {@link #MAX_PARK_NANOS}: an idle set costs one look per millisecond, and a device call after a
 * long idle waits at most that long to be seen.
 * The watcher's reads are of host memory the GPU writes over PCIe: they cost the GPU nothing.
 */
final class DevicePortWatcher {
    /** Busy look after the last flip seen, so the packets of one call and back-to-back calls are seen at once. */
    static final long SPIN_NANOS = 200_000;
    /** First park once idle. */
    static final long MIN_PARK_NANOS = 20_000;
    /** Longest park once idle: the most a device call after a long idle waits to be seen. */
    static final long MAX_PARK_NANOS = 1_000_000;

    private final RpcServer server;
    private final PortSet ports;
    private final int first;
    private final int[] seen;
    private final Thread thread;
    /** The server threads' background strategy, busy for {@link #SPIN_NANOS} after a flip, then parks backing off. */
    private final IdleStrategy idle;
    private volatile boolean running = true;

    DevicePortWatcher(RpcServer server, PortSet ports, String name) {
        this.server = server;
        this.ports = ports;
        this.first = ports.hostPorts();
        this.seen = new int[ports.devicePorts()];
        this.idle = ports.serverIdle.withBusyNanos(SPIN_NANOS).withParks(MIN_PARK_NANOS, MAX_PARK_NANOS);
        this.thread = new Thread(this::watch, name + "-device-ports");
        thread.setDaemon(true);
        thread.start();
    }

    private void watch() {
        Idler idler = idle.idler().blocker(this);
        while (running && !ports.isFreed()) {
            if (lookOnce()) {
                idler = idle.idler().blocker(this);
                continue;
            }
            idler.idle();
        }
    }

    /** One look at every device port; true when some client flag changed since the last look. */
    boolean lookOnce() {
        boolean any = false;
        for (int i = 0; i < seen.length; i++) {
            int p = first + i;
            long port = ports.portOffset(p);
            int flag = ports.loadIntAcquire(port + RpcLayout.CLIENT_FLAG);
            if (flag != seen[i]) {
                seen[i] = flag;
                any = true;
            }
            if (flag == ports.loadIntAcquire(port + RpcLayout.SERVER_FLAG)) {
                continue; // the client's turn: nothing for the server
            }
            Thread waiter = ports.serverWaiters.get(p);
            if (waiter != null) {
                LockSupport.unpark(waiter);
            }
            if (ports.loadIntAcquire(port + RpcLayout.SERVER_CLAIM) == 0 && !ports.isPending(p)) {
                ports.markPending(p);
                server.wakeOne();
            }
        }
        return any;
    }

    /** Stops the thread and waits for it up to {@code timeoutMillis}. */
    void stop(long timeoutMillis) {
        running = false;
        LockSupport.unpark(thread);
        try {
            thread.join(timeoutMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
