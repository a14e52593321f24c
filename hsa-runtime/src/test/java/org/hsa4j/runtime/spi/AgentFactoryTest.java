package org.hsa4j.runtime.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Arrays;
import java.util.List;

import org.hsa4j.agent.Agent;
import org.junit.jupiter.api.Test;

/**
 * Applications get agents from {@code HsaRuntime} only: {@link Agent} has no public way to be made,
 * and {@link AgentFactory}'s package is not exported (ModuleDescriptorTest). Every runtime a test
 * starts makes its agents through the factory, and AgentProviderTest its provided ones.
 */
class AgentFactoryTest {
    @Test
    void shouldLeaveAgentWithoutAPublicConstructor() {
        assertEquals(0, Agent.class.getConstructors().length);
    }

    @Test
    void shouldLeaveAgentWithoutAPublicStaticFactory() {
        List<String> factories = Arrays.stream(Agent.class.getMethods())
                .filter(m -> Modifier.isStatic(m.getModifiers()) && m.getReturnType() == Agent.class)
                .map(Method::getName).toList();
        assertEquals(List.of(), factories);
    }
}
