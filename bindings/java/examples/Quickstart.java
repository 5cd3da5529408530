import java.util.List;

import org.kpc.Counters;
import org.kpc.Event;
import org.kpc.KpcException;
import org.kpc.Sampler;

/** Counts what a piece of work costs this thread. Run by CTest as java_example. */
public class Quickstart {
    public static void main(String[] args) {
        try (Sampler sampler = new Sampler();
             Counters counters = sampler.counters("task-clock", "page-faults")) {
            System.out.println("backend " + sampler.backendName() + " on " + sampler.cpuName());

            counters.start();
            long[] before = counters.sample();
            double sum = 0;
            for (int i = 1; i < 20_000_000; i++) {
                sum += Math.sqrt(i);
            }
            long[] after = counters.sample();

            List<Event> events = counters.events();
            for (int i = 0; i < events.size(); i++) {
                System.out.printf("%-12s %d%n", events.get(i).name(), after[i] - before[i]);
            }
            System.out.println("(sum " + (long) sum + ")");
        } catch (KpcException e) {
            // getStatus() is the C code as an enum; the message says what to do.
            System.err.println(e.getStatus() + ": " + e.getMessage());
            System.exit(1);
        }
    }
}
