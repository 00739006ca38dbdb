from initiative.cli import main

main()
