from kairos.cli.main import main

main()
