package org.hsa4j.kernel;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a {@code static long} field of a code object as a reference to a variable the program
 * defines before loading it ({@code hsa_executable_global_variable_define},
 * {@code _agent_global_variable_define}, {@code _readonly_variable_define}): loading sets the field
 * to the variable's SVM address, and fails with VARIABLE_UNDEFINED when no such variable exists.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface ExternalVariable {
    /** The variable's symbol name. */
    String value();
}
