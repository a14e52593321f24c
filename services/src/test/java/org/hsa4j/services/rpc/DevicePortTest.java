package org.hsa4j.services.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.hsa4j.memory.Svm;
import org.hsa4j.services.Fixture;
import org.hsa4j.services.ServicesConfig;
import org.hsa4j.services.memory.MemoryOp;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Device ports: the ports a GPU without host-native atomics uses. Its client marks nothing pending
 * (the bitmap is read-modify-written by host threads alone); the server's device-port watcher
 * finds its packets. Host clients never lock a device port.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DevicePortTest {

    private static ServicesConfig.Builder devicePorts(int host, int device) {
        // a re-poll far past the test's bounded waits: only the watcher can find a device packet in time
        return ServicesConfig.builder().ports(host).devicePorts(device).repollNanos(60_000_000_000L);
    }

    @Test
    void theSetHeaderNamesTheDevicePortsAfterTheHostPorts() {
        try (Fixture f = Fixture.start(devicePorts(3, 5))) {
            Svm svm = f.rt.svm();
            long set = f.services.ports().address();
            assertEquals(8, svm.getInt(set + RpcLayout.SET_PORT_COUNT));
            assertEquals(3, svm.getInt(set + RpcLayout.SET_DEVICE_FIRST));
            assertEquals(5, svm.getInt(set + RpcLayout.SET_DEVICE_PORTS));
            assertEquals(3, f.services.ports().hostPorts());
            assertEquals(5, f.services.ports().devicePorts());
        }
    }

    @Test
    void withDevicePortsTheSetAndHostMallocUseRealAddressesAKernelCanDereference() {
        try (Fixture f = Fixture.start(devicePorts(1, 1))) {
            assertEquals(f.rt.realSystemPool(), f.rt.pointerInfo(f.services.ports().address()).pool());
            long p = f.services.client().call(f.rt.svm(), MemoryOp.MALLOC, 64);
            assertEquals(f.rt.realSystemPool(), f.rt.pointerInfo(p).pool());
        }
    }

    @Test
    void aCallWhoseClientOnlyStoresItsPortWordsIsServed() {
        try (Fixture f = Fixture.start(devicePorts(1, 2))) {
            DeviceStyleClient c = new DeviceStyleClient(f.rt.svm(), f.services.ports().address());
            long port = c.devicePort(1);
            Svm svm = f.rt.svm();
            for (int call = 0; call < 50; call++) {
                c.lock(port);
                svm.setLong(c.lane(port, 0, 0), 1000 + call);
                svm.setLong(c.lane(port, 3, 7), -call);
                c.open(port, Opcodes.ECHO, 1L | 1L << 3);
                assertEquals(RpcStatus.OK.finalWord(), c.awaitServer(port));
                assertEquals(1000 + call, svm.getLong(c.lane(port, 0, 0)));
                assertEquals(-call, svm.getLong(c.lane(port, 3, 7)));
                c.unlock(port);
            }
            assertEquals(0, svm.getInt(f.services.ports().pendingWordAddress(0)) & 0b110,
                    "the device ports' pending bits are the host's alone");
        }
    }

    @Test
    void aDeviceCallOfManyPacketsIsServedPacketByPacket() {
        try (Fixture f = Fixture.start(devicePorts(1, 1).lanes(4))) {
            DeviceStyleClient c = new DeviceStyleClient(f.rt.svm(), f.services.ports().address());
            Svm svm = f.rt.svm();
            long port = c.devicePort(0);
            c.lock(port);
            c.open(port, Opcodes.ECHO_N, 1L);
            // send_n of 600 bytes from one lane: chunks of 4 lanes x 64 bytes, the first starting with the length
            int length = 600;
            int chunk = RpcLayout.chunkBytes(4, 1);
            long region = port + RpcLayout.laneOffset(0);
            int sent = 0;
            for (int packet = 0; sent < length || packet == 0; packet++) {
                assertEquals(RpcStatus.CONTINUE_WORD, c.awaitServer(port), "the server asks for chunk " + packet);
                int at = 0;
                if (packet == 0) {
                    svm.setLong(region, length);
                    at = 8;
                }
                for (; at < chunk && sent < length; at++, sent++) {
                    svm.setByte(region + at, (byte) sent);
                }
                c.post(port, RpcLayout.KIND_DATA);
            }
            // recv_n: the same bytes back, then the final packet
            int got = 0;
            long back = -1;
            for (int packet = 0; got < length || packet == 0; packet++) {
                assertEquals(RpcStatus.CONTINUE_WORD, c.awaitServer(port), "the server sends chunk " + packet);
                int at = 0;
                if (packet == 0) {
                    back = svm.getLong(region);
                    at = 8;
                }
                for (; at < chunk && got < back; at++, got++) {
                    assertEquals((byte) got, svm.getByte(region + at), "byte " + got);
                }
                c.post(port, RpcLayout.KIND_DATA);
            }
            assertEquals(length, back);
            assertEquals(RpcStatus.OK.finalWord(), c.awaitServer(port));
            c.unlock(port);
        }
    }

    @Test
    void aHostCallerWaitsForAHostPortInsteadOfTakingADevicePort() {
        try (Fixture f = Fixture.start(devicePorts(1, 4).portWaitNanos(50_000_000))) {
            RpcClient client = f.services.client();
            try (RpcCall first = client.open(f.rt.svm(), Opcodes.ECHO, 1L)) {
                assertEquals(0, first.port());
                RpcCall[] second = new RpcCall[1];
                Thread other = new Thread(() -> second[0] = client.open(f.rt.svm(), Opcodes.ECHO, 1L));
                other.start();
                other.join(30_000);
                assertFalse(other.isAlive(), "the second caller's port wait is bounded");
                assertFalse(second[0].hasPort(), "no device port for a host caller, was port " + second[0].port());
                assertEquals(RpcStatus.BUSY, second[0].status());
                for (int i = 0; i < 4; i++) {
                    assertEquals(0, f.rt.svm().getInt(f.services.ports().portAddress(1 + i) + RpcLayout.LOCK));
                }
                first.args(9);
                assertEquals(RpcStatus.OK, first.finish());
                assertEquals(9, first.result(0));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
            assertTrue(f.services.server().callsServed() >= 1);
        }
    }
}
