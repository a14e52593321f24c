package org.hsa4j.trace;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * hsa4j's JDK Flight Recorder events ({@code org.hsa4j.*}, category "hsa4j") and the enabled flags
 * the hooks read. A dispatch event spans launch to completion and is committed by the unit that
 * completed it; a workgroup event spans one part on the unit that ran it; a signal-wait and a
 * service-call event span the wait or the service on its thread. A barrier is committed when its
 * dependencies are met, with how long it waited as a field (JFR gives no way to back-date a start).
 * None records a stack trace.
 */
final class Jfr {
    /** hsa4j's event types, in the order of {@code Types.TYPES}. */
    enum Kind { DISPATCH, WORKGROUP, BARRIER, SIGNAL_WAIT, SERVICE_CALL }

    private Jfr() {
    }

    /**
     * True when a recording enables events of {@code kind}. Until somebody starts JFR (a
     * {@code Recording}, {@code -XX:StartFlightRecording}, {@code jcmd JFR.start}) this is one read
     * of the recorder's initialized flag: the event classes, whose first load costs a JVM hundreds
     * of milliseconds of JFR set-up, are loaded only once JFR is up.
     */
    static boolean enabled(Kind kind) {
        return PRESENT && FlightRecorder.isInitialized() && Types.TYPES[kind.ordinal()].isEnabled();
    }

    /** False in a runtime image without the jdk.jfr module: then no JFR class is ever resolved. */
    private static final boolean PRESENT = ModuleLayer.boot().findModule("jdk.jfr").isPresent();

    /** The event types, made on first use (after JFR is up). */
    private static final class Types {
        static final EventType[] TYPES = {
            EventType.getEventType(DispatchEvent.class), EventType.getEventType(WorkgroupEvent.class),
            EventType.getEventType(BarrierEvent.class), EventType.getEventType(SignalWaitEvent.class),
            EventType.getEventType(ServiceCallEvent.class)};
    }

    /** Commits a barrier event when a recording enables it. */
    static void barrier(String agentName, long queueId, long packetId, boolean and, long waitedNanos) {
        if (enabled(Kind.BARRIER)) {
            BarrierEvent e = new BarrierEvent();
            e.agent = agentName;
            e.queue = queueId;
            e.packet = packetId;
            e.kind = and ? "AND" : "OR";
            e.waited = waitedNanos;
            e.commit();
        }
    }

    @Name("org.hsa4j.Dispatch")
    @Label("Dispatch")
    @Category("hsa4j")
    @Description("A kernel or agent dispatch packet, from launch to completion")
    @StackTrace(false)
    static final class DispatchEvent extends Event {
        @Label("Agent")
        String agent;
        @Label("Queue")
        long queue;
        @Label("Packet")
        long packet;
        @Label("Kernel")
        String kernel;
        @Label("Grid")
        String grid;
        @Label("Workgroup")
        String workgroup;
        @Label("Workgroups")
        long workgroups;
        @Label("Failed")
        boolean failed;
    }

    @Name("org.hsa4j.Workgroup")
    @Label("Workgroup")
    @Category("hsa4j")
    @Description("One workgroup (or agent dispatch) on the compute unit that ran it")
    @StackTrace(false)
    static final class WorkgroupEvent extends Event {
        @Label("Agent")
        String agent;
        @Label("Compute Unit")
        int unit;
        @Label("Queue")
        long queue;
        @Label("Packet")
        long packet;
        @Label("Kernel")
        String kernel;
        @Label("Workgroup Id")
        long group;
    }

    @Name("org.hsa4j.Barrier")
    @Label("Barrier Packet")
    @Category("hsa4j")
    @Description("A barrier-AND or barrier-OR packet whose dependencies were met")
    @StackTrace(false)
    static final class BarrierEvent extends Event {
        @Label("Agent")
        String agent;
        @Label("Queue")
        long queue;
        @Label("Packet")
        long packet;
        @Label("Kind")
        String kind;
        @Label("Waited")
        @Timespan(Timespan.NANOSECONDS)
        long waited;
    }

    @Name("org.hsa4j.SignalWait")
    @Label("Signal Wait")
    @Category("hsa4j")
    @Description("A signal wait that did not succeed at its first look")
    @StackTrace(false)
    static final class SignalWaitEvent extends Event {
        @Label("Signal")
        long signal;
        @Label("Parked")
        boolean parked;
    }

    @Name("org.hsa4j.ServiceCall")
    @Label("Service Call")
    @Category("hsa4j")
    @Description("One RPC call served by a service")
    @StackTrace(false)
    static final class ServiceCallEvent extends Event {
        @Label("Service")
        String service;
        @Label("Opcode")
        String opcode;
        @Label("Status")
        String status;
    }
}
