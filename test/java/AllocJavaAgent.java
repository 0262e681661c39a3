// AllocJavaAgent - a minimal java agent for "agent-install --agent x.jar":
// agentmain writes its argument to the file the argument names.
import java.nio.file.Files;
import java.nio.file.Paths;

public class AllocJavaAgent {
  public static void agentmain(String args) throws Exception {
    Files.write(Paths.get(args), ("loaded " + args + "\n").getBytes());
  }
}
