from hotdb.cli import main

main()
