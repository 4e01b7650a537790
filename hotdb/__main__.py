from hotdb.cli.app import main

main()
