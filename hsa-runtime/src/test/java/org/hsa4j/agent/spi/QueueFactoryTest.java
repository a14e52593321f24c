package org.hsa4j.agent.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import org.hsa4j.queue.Queue;
import org.junit.jupiter.api.Test;

/**
 * Applications get queues from {@code Agent.createQueue} and {@code HsaRuntime.createSoftQueue} only:
 * {@link Queue} has no public way to be made, and {@link QueueFactory}'s package is not exported
 * (ModuleDescriptorTest). Every test that creates a queue goes through the factory.
 */
class QueueFactoryTest {
    @Test
    void shouldLeaveQueueWithoutAPublicConstructor() {
        assertEquals(0, Queue.class.getConstructors().length);
    }

    @Test
    void shouldLeaveQueueWithoutAPublicStaticFactory() {
        List<String> factories = Arrays.stream(Queue.class.getMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers()) && m.getReturnType() == Queue.class)
                .map(Method::getName).toList();
        assertEquals(List.of(), factories);
    }

    @Test
    void shouldLeaveTheAgentsQueueMachineryOffQueuesPublicMethods() {
        List<String> machinery = Arrays.stream(Queue.class.getMethods())
                .map(Method::getName).filter(n -> n.equals("markDestroyed") || n.equals("allocations")).toList();
        assertEquals(List.of(), machinery);
    }
}
