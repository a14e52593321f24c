package org.hsa4j.services;

import java.util.Objects;

import org.hsa4j.services.net.NetPolicy;
import org.hsa4j.services.printf.PrintfSink;
import org.hsa4j.services.syscall.SyscallPolicy;
import org.hsa4j.signal.WaitState;

/**
 * How the services run.
 *
 * @param ports            RPC ports; 0 picks twice the compute units of all agents, at least 16
 * @param lanes            lanes per port; 0 picks the GPU wavefront size (at most 64)
 * @param serverThreads    host threads scanning the ports
 * @param handlerThreads   host threads running blocking services (fed through the Disruptor ring)
 * @param idleSpinNanos    how long an idle server thread spins before it sleeps
 * @param repollNanos      longest sleep of an idle server thread between two looks at the ports (the
 *                         bound on a missed doorbell; sleeps start at 1 ms and double up to it)
 * @param callTimeoutNanos how long a server waits for a client's next packet within a call
 * @param deferredTimeoutNanos the server-side deadline of a deferred reply (nanosleep, accept, recv):
 *                         past it the call ends with TIMEOUT and its port comes back
 * @param portWaitNanos    how long a caller waits for a free port before its call ends with BUSY
 * @param serviceTimeoutNanos how long a service may run on a server or handler thread: past it its call
 *                         ends with TIMEOUT and the thread is moved aside (a fresh one serves in its place)
 * @param waitState        how clients wait for replies (ACTIVE spins longer before parking)
 * @param syscallPolicy    the syscall sandbox (default: files beneath the working directory and java.io.tmpdir)
 * @param printfSink       where printf output goes
 * @param netPolicy        which addresses and ports kernels may listen on or connect to (default: loopback,
 *                         unprivileged ports)
 * @param netThreads       Netty event-loop threads
 * @param deviceChunkBytes bytes per chunk of the default device heap
 * @param devicePorts      RPC ports after the host's for clients on a device without host-native
 *                         atomics (CUDA kernels, {@code hsa4j_rpc.cuh}); 0: none
 * @param handlerCallsOnServerThread whether a server thread may run a HANDLER call itself when no other
 *                         port waits (a substitute scans meanwhile); false hands every one to a handler
 */
public record ServicesConfig(int ports, int lanes, int serverThreads, int handlerThreads, long idleSpinNanos,
                             long repollNanos, long callTimeoutNanos, long deferredTimeoutNanos,
                             long portWaitNanos, long serviceTimeoutNanos, WaitState waitState,
                             SyscallPolicy syscallPolicy, PrintfSink printfSink, NetPolicy netPolicy,
                             int netThreads, long deviceChunkBytes, int devicePorts,
                             boolean handlerCallsOnServerThread) {
    public ServicesConfig {
        Objects.requireNonNull(waitState, "waitState");
        Objects.requireNonNull(syscallPolicy, "syscallPolicy");
        Objects.requireNonNull(printfSink, "printfSink");
        Objects.requireNonNull(netPolicy, "netPolicy");
        if (ports < 0 || ports > 65536 || lanes < 0 || lanes > 64) {
            throw new IllegalArgumentException("ports 0..65536 and lanes 0..64, were " + ports + " and " + lanes);
        }
        if (deferredTimeoutNanos < 1_000_000 || portWaitNanos < 1_000_000 || serviceTimeoutNanos < 1_000_000) {
            throw new IllegalArgumentException("deferred timeout, port wait and service timeout >= 1 ms, were "
                    + deferredTimeoutNanos + ", " + portWaitNanos + " and " + serviceTimeoutNanos);
        }
        if (devicePorts < 0 || devicePorts > 65536) {
            throw new IllegalArgumentException("device ports 0..65536, were " + devicePorts);
        }
        if (netThreads < 1) {
            throw new IllegalArgumentException("at least one net thread");
        }
    }

    /** The defaults. */
    public static ServicesConfig defaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.ports = ports;
        b.lanes = lanes;
        b.serverThreads = serverThreads;
        b.handlerThreads = handlerThreads;
        b.idleSpinNanos = idleSpinNanos;
        b.repollNanos = repollNanos;
        b.callTimeoutNanos = callTimeoutNanos;
        b.deferredTimeoutNanos = deferredTimeoutNanos;
        b.portWaitNanos = portWaitNanos;
        b.serviceTimeoutNanos = serviceTimeoutNanos;
        b.waitState = waitState;
        b.syscallPolicy = syscallPolicy;
        b.printfSink = printfSink;
        b.netPolicy = netPolicy;
        b.netThreads = netThreads;
        b.deviceChunkBytes = deviceChunkBytes;
        b.devicePorts = devicePorts;
        b.handlerCallsOnServerThread = handlerCallsOnServerThread;
        return b;
    }

    /** Builds a {@link ServicesConfig}. */
    public static final class Builder {
        private int ports;
        private int lanes;
        private int serverThreads = 1;
        private int handlerThreads = 2;
        private long idleSpinNanos = 25_000;
        private long repollNanos = 50_000_000;
        private long callTimeoutNanos = 30_000_000_000L;
        private long deferredTimeoutNanos = 60_000_000_000L;
        private long portWaitNanos = 30_000_000_000L;
        private long serviceTimeoutNanos = 30_000_000_000L;
        private WaitState waitState = WaitState.BLOCKED;
        private SyscallPolicy syscallPolicy = SyscallPolicy.defaults();
        private PrintfSink printfSink = PrintfSink.STDOUT;
        private NetPolicy netPolicy = NetPolicy.LOOPBACK_ONLY;
        private int netThreads = 1;
        private long deviceChunkBytes = 64 * 1024;
        private int devicePorts;
        private boolean handlerCallsOnServerThread = true;

        private Builder() {
        }

        /** RPC ports (0: automatic). */
        public Builder ports(int v) {
            ports = v;
            return this;
        }

        /** Lanes per port (0: the wavefront size). */
        public Builder lanes(int v) {
            lanes = v;
            return this;
        }

        /** Server threads. */
        public Builder serverThreads(int v) {
            serverThreads = v;
            return this;
        }

        /** Handler threads. */
        public Builder handlerThreads(int v) {
            handlerThreads = v;
            return this;
        }

        /** Idle spin of a server thread before it sleeps. */
        public Builder idleSpinNanos(long v) {
            idleSpinNanos = v;
            return this;
        }

        /** Longest sleep of an idle server thread (the missed-doorbell bound). */
        public Builder repollNanos(long v) {
            repollNanos = v;
            return this;
        }

        /** Longest wait for a client's next packet within a call. */
        public Builder callTimeoutNanos(long v) {
            callTimeoutNanos = v;
            return this;
        }

        /** Server-side deadline of a deferred reply (nanosleep, accept, recv); default 60 s. */
        public Builder deferredTimeoutNanos(long v) {
            deferredTimeoutNanos = v;
            return this;
        }

        /** Longest wait of a caller for a free port before its call ends with BUSY; default 30 s. */
        public Builder portWaitNanos(long v) {
            portWaitNanos = v;
            return this;
        }

        /** Longest run of a service on a server or handler thread before the watchdog times it out; default 30 s. */
        public Builder serviceTimeoutNanos(long v) {
            serviceTimeoutNanos = v;
            return this;
        }

        /** How clients wait for replies. */
        public Builder waitState(WaitState v) {
            waitState = v;
            return this;
        }

        /** The syscall sandbox. */
        public Builder syscallPolicy(SyscallPolicy v) {
            syscallPolicy = v;
            return this;
        }

        /** Where printf output goes. */
        public Builder printfSink(PrintfSink v) {
            printfSink = v;
            return this;
        }

        /** Which addresses kernels may use. */
        public Builder netPolicy(NetPolicy v) {
            netPolicy = v;
            return this;
        }

        /** Netty event-loop threads. */
        public Builder netThreads(int v) {
            netThreads = v;
            return this;
        }

        /** Chunk size of the default device heap. */
        public Builder deviceChunkBytes(long v) {
            deviceChunkBytes = v;
            return this;
        }

        /** RPC ports for device clients, after the host's (0: none). */
        public Builder devicePorts(int v) {
            devicePorts = v;
            return this;
        }

        /** Whether a server thread may run a HANDLER call itself when no other port waits (default true). */
        public Builder handlerCallsOnServerThread(boolean v) {
            handlerCallsOnServerThread = v;
            return this;
        }

        /** The configuration. */
        public ServicesConfig build() {
            return new ServicesConfig(ports, lanes, serverThreads, handlerThreads, idleSpinNanos, repollNanos,
                    callTimeoutNanos, deferredTimeoutNanos, portWaitNanos, serviceTimeoutNanos, waitState, syscallPolicy, printfSink, netPolicy,
                    netThreads, deviceChunkBytes, devicePorts, handlerCallsOnServerThread);
        }
    }
}
