package org.kpc.tests;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * Runs JUnit 5 test classes for CTest and maps the outcome to an exit code:
 * 0 all passed; 1 a test or container failed, or no test ran (a misspelt class);
 * 77 (CTest SKIP_RETURN_CODE) nothing failed but some test was skipped, by an assumption
 * (JUnit "aborted") or @Disabled. The reasons are printed, so a skip is never silent and
 * never counted as a pass.
 *
 * <p>usage: java -cp kpc.jar:kpc-tests.jar:junit-platform-console-standalone.jar
 * org.kpc.tests.CtestRunner CLASS...
 */
public final class CtestRunner {
    static final int SKIP_CODE = 77;

    public static void main(String[] args) {
        if (args.length == 0) {
            System.err.println("usage: CtestRunner <test class>...");
            System.exit(2);
        }
        LauncherDiscoveryRequestBuilder builder = LauncherDiscoveryRequestBuilder.request();
        for (String name : args) {
            builder.selectors(selectClass(name));
        }
        LauncherDiscoveryRequest request = builder.build();
        Listener listener = new Listener();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, listener);
        System.exit(listener.exitCode());
    }

    private static final class Listener implements TestExecutionListener {
        private TestPlan plan;
        private int passed;
        private int failed;
        private final List<String> skipped = new ArrayList<>();
        private final List<String> failures = new ArrayList<>();

        @Override
        public void testPlanExecutionStarted(TestPlan testPlan) {
            plan = testPlan;
        }

        private String label(TestIdentifier id) {
            Optional<TestIdentifier> parent = plan.getParent(id);
            String prefix = parent.filter(p -> p.getSource().isPresent())
                    .map(p -> p.getDisplayName() + ".").orElse("");
            return prefix + id.getDisplayName();
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            skipped.add(label(id) + ": " + reason);
            System.out.println("[ SKIPPED ] " + label(id) + ": " + reason);
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            String name = label(id);
            switch (result.getStatus()) {
                case SUCCESSFUL:
                    if (id.isTest()) {
                        passed++;
                        System.out.println("[ PASSED  ] " + name);
                    }
                    break;
                case ABORTED: {
                    String reason = result.getThrowable().map(Throwable::getMessage).orElse("aborted");
                    skipped.add(name + ": " + reason);
                    System.out.println("[ SKIPPED ] " + name + ": " + reason);
                    break;
                }
                case FAILED: {
                    failed++;
                    StringWriter trace = new StringWriter();
                    result.getThrowable().ifPresent(t -> t.printStackTrace(new PrintWriter(trace)));
                    failures.add(name + "\n" + trace);
                    System.out.println("[ FAILED  ] " + name + ": "
                            + result.getThrowable().map(Throwable::toString).orElse(""));
                    break;
                }
                default:
                    break;
            }
            System.out.flush();
        }

        int exitCode() {
            for (String f : failures) {
                System.out.println("---- FAILURE: " + f);
            }
            System.out.printf("%d passed, %d failed, %d skipped%n", passed, failed, skipped.size());
            if (failed > 0) {
                return 1;
            }
            if (passed == 0 && skipped.isEmpty()) {
                System.out.println("no test ran: is the class name right?");
                return 1;
            }
            if (!skipped.isEmpty()) {
                System.out.println("Some tests could not run here and were skipped:");
                for (String s : skipped) {
                    System.out.println("  SKIPPED " + s);
                }
                return SKIP_CODE;
            }
            return 0;
        }
    }
}
