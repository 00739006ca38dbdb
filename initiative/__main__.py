from initiative._cli import main

main()
