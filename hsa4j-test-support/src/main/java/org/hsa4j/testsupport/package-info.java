/**
 * Helpers for users' jcstress tests against hsa4j, the ones the project's own stress suite uses.
 *
 * <p>jcstress makes a new state object for every sample, millions per run, and drops it without a
 * destructor, so a state can neither allocate SVM nor create signals of its own: {@link
 * org.hsa4j.testsupport.SvmSlots} hands out zeroed per-state slots carved round-robin from one
 * {@code hostMalloc}, and {@link org.hsa4j.testsupport.SignalRing} hands out signals made once
 * and recycled round-robin. {@link org.hsa4j.testsupport.BoundedWait} bounds every wait of an
 * actor, so a broken protocol reports a FORBIDDEN {@code "TIMEOUT"} outcome instead of hanging the
 * run. Depend on {@code org.hsa4j:hsa4j-test-support} (its version comes from {@code hsa4j-bom})
 * in the test scope; {@code examples/src/test/java/org/hsa4j/examples/stress/MailboxStress.java}
 * shows the pattern.
 */
package org.hsa4j.testsupport;
